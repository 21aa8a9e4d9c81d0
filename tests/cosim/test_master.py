"""The master loop: exchange, time stamps, error levels, partial results, multi-rate."""

import math
import warnings

import numpy as np
import pytest

from bondgraph.cosim import (Cosimulation, CosimulationWarning, ErrorPolicy, Glue,
                             PythonSubsystem, Relations, StateSpaceSubsystem, Subsystem,
                             TimeManager, cosimulate)
from bondgraph.cosim import examples as ex
from bondgraph.errors import CosimulationError, ParameterError


class Ramp:
    """Output y = t (exact), input u recorded."""

    def __init__(self):
        self.y = 0.0
        self.u = 0.0
        self.seen = []
        self.terminated = False

    def do_step(self, t, h):
        self.seen.append((t, self.u))
        self.y = t + h

    def terminate(self):
        self.terminated = True


def ramps(**kw):
    a, b = Ramp(), Ramp()
    sa = PythonSubsystem(a, "a", [("u", "s")], [("y", "s")], direct_feedthrough=False, **kw)
    sb = PythonSubsystem(b, "b", [("u", "s")], [("y", "s")], direct_feedthrough=False, **kw)
    return a, b, sa, sb


RAMP_REL = Relations(["a.y -> b.u", "b.y -> a.u"])


def test_jacobi_exchanges_the_previous_communication_point_values():
    a, b, sa, sb = ramps()
    res = cosimulate([sa, sb], RAMP_REL, step=0.1, end=0.5, glue="zoh")
    # with ZOH each side sees the other's output at the start of its step
    assert [round(u, 12) for _, u in a.seen] == [0.0, 0.1, 0.2, 0.3, 0.4]
    assert np.allclose(res["a.y"], [0, 0.1, 0.2, 0.3, 0.4, 0.5])
    assert np.allclose(res.time, np.linspace(0, 0.5, 6))


def test_gauss_seidel_gives_later_subsystems_the_new_values():
    a, b, sa, sb = ramps()
    sim = Cosimulation([sa, sb], RAMP_REL,
                       TimeManager(step=0.1, end=0.3, scheme="gauss-seidel"), Glue("zoh"))
    sim.run()
    # b goes second and sees a's output at the end of the step (interpolated, order 0)
    assert [round(u, 12) for _, u in b.seen] == [0.1, 0.2, 0.3]
    assert [round(u, 12) for _, u in a.seen] == [0.0, 0.1, 0.2]


def test_linear_extrapolation_is_exact_for_a_ramp():
    class Sampler:
        """Reads its input at the end of each step through the derivative."""

        def __init__(self):
            self.u, self.du, self.y, self.end = 0.0, 0.0, 0.0, []

        def set_input_derivatives(self, t, d):
            self.du = d["u"][0] if d["u"] else 0.0

        def do_step(self, t, h):
            self.end.append(self.u + h * self.du)

    s = Sampler()
    samp = PythonSubsystem(s, "s", [("u", "s")], [("y", "1")], direct_feedthrough=False,
                           input_derivative_order=1)
    src = PythonSubsystem(Ramp(), "r", [("u", "1")], [("y", "s")], direct_feedthrough=False)
    sim = Cosimulation([src, samp], Relations(["r.y -> s.u", "s.y -> r.u"]),
                       TimeManager(step=0.1, end=0.5), Glue("linear", start="reduced"))
    with pytest.warns(CosimulationWarning, match="subsystem 'r' takes 0 input derivative"):
        sim.run()
    # first step: one sample only (reduced to ZOH); afterwards exact
    assert s.end[0] == 0.0
    assert np.allclose(s.end[1:], [0.2, 0.3, 0.4, 0.5])


class Early(Subsystem):
    """Stops half-way in the step that starts at ``t_stop``."""

    def __init__(self, t_stop):
        super().__init__("early", [("u", "1")], [("y", "1")], direct_feedthrough=False)
        self.t_stop = t_stop

    def set_inputs(self, t, values, derivatives):
        pass

    def get_outputs(self):
        return np.zeros(1)

    def do_step(self, t, h):
        return t + h / 2 if t >= self.t_stop - 1e-12 else None


def early_pair(t_stop=0.3):
    other = PythonSubsystem(Ramp(), "other", [("u", "1")], [("y", "1")],
                            direct_feedthrough=False)
    return [Early(t_stop), other], Relations(["early.y -> other.u", "other.y -> early.u"])


def test_time_stamp_mismatch_aborts_with_partial_results():
    subs, rel = early_pair()
    with pytest.raises(CosimulationError) as info:
        cosimulate(subs, rel, step=0.1, end=1.0, glue="zoh")
    err = info.value
    msg = str(err)
    assert "time_mismatch" in msg and "subsystem 'early'" in msg
    assert "its step reached t=0.35 s after the step, expected t=0.4 s" in msg
    assert err.time == pytest.approx(0.3)
    assert err.results.aborted and np.allclose(err.results.time, [0, 0.1, 0.2, 0.3])
    assert "last good point t=0.3 s" in msg


def test_time_stamp_mismatch_as_warning_continues_and_records_every_event():
    subs, rel = early_pair(t_stop=0.7)
    with pytest.warns(CosimulationWarning, match="subsystem 'early'") as w:
        res = cosimulate(subs, rel, step=0.1, end=1.0, glue="zoh",
                         policy=ErrorPolicy(time_mismatch="warning"))
    assert len([x for x in w if issubclass(x.category, CosimulationWarning)]) == 1  # once
    assert res.status == "completed" and len(res) == 11
    assert [round(e.time, 9) for e in res.events] == [0.8, 0.9, 1.0]


def test_error_level_finishes_the_run_then_raises_with_all_errors():
    subs, rel = early_pair(t_stop=0.75)
    with pytest.raises(CosimulationError) as info:
        cosimulate(subs, rel, step=0.1, end=1.0, glue="zoh",
                   policy=ErrorPolicy(time_mismatch="error"))
    err = info.value
    assert "finished with errors" in str(err) and len(err.problems) == 2
    assert all("subsystem 'early'" in p for p in err.problems)
    assert err.results.status == "error" and len(err.results) == 11
    assert err.time == pytest.approx(1.0)


class Blows(Subsystem):
    def __init__(self, at, how):
        super().__init__("blows", [("u", "1")], [("y", "1")], direct_feedthrough=False)
        self.at, self.how, self.t = at, how, 0.0
        self.terminated = False

    def set_inputs(self, t, values, derivatives):
        pass

    def get_outputs(self):
        if self.how == "nan" and self.t >= self.at - 1e-12:
            return np.array([np.nan])
        return np.array([self.t])

    def do_step(self, t, h):
        if self.how == "raise" and t + h >= self.at - 1e-12:
            raise ValueError("solver diverged in the boom cylinder")
        self.t = t + h

    def terminate(self):
        self.terminated = True


def blow_pair(at, how):
    ramp = Ramp()
    b = Blows(at, how)
    other = PythonSubsystem(ramp, "other", [("u", "1")], [("y", "1")], direct_feedthrough=False)
    return b, ramp, [b, other], Relations(["blows.y -> other.u", "other.y -> blows.u"])


def test_non_finite_output_aborts_naming_the_signal():
    b, ramp, subs, rel = blow_pair(0.5, "nan")
    with pytest.raises(CosimulationError) as info, pytest.warns(CosimulationWarning):
        cosimulate(subs, rel, step=0.1, end=1.0, glue="quadratic")
    msg = str(info.value)
    assert "non_finite" in msg and "blows.y=nan" in msg and "expected finite values" in msg
    res = info.value.results
    assert res.time[-1] == pytest.approx(0.4) and np.all(np.isfinite(res.outputs))
    assert b.terminated and ramp.terminated  # every subsystem is terminated


def test_failed_step_aborts_naming_the_subsystem_and_the_cause():
    b, ramp, subs, rel = blow_pair(0.3, "raise")
    with pytest.raises(CosimulationError) as info:
        cosimulate(subs, rel, step=0.1, end=1.0, glue="zoh")
    err = info.value
    assert "step_failed" in str(err) and "subsystem 'blows'" in str(err)
    assert "ValueError: solver diverged in the boom cylinder" in str(err)
    assert isinstance(err.__cause__, ValueError)
    assert err.time == pytest.approx(0.2)
    assert np.allclose(err.results["blows.y"], [0, 0.1, 0.2])
    assert b.terminated and ramp.terminated


def test_algebraic_loop_between_feedthrough_subsystems_is_refused():
    class Pass:
        u = 0.0

        def y(self):
            return self.u

        def do_step(self, t, h):
            pass
    a = PythonSubsystem(Pass(), "a", [("u", "1")], [("y", "1")], direct_feedthrough=True)
    b = PythonSubsystem(Pass(), "b", [("u", "1")], [("y", "1")], direct_feedthrough=True)
    with pytest.raises(CosimulationError, match=r"algebraic loop .*: (a -> b -> a|b -> a -> b)"):
        Cosimulation([a, b], Relations(["a.y -> b.u", "b.y -> a.u"]),
                     TimeManager(step=0.1, end=1.0))


def test_feedthrough_outputs_are_consistent_at_communication_points():
    mass, spring = ex.b1_subsystems()
    res = cosimulate([mass, spring], ex.B1_RELATIONS, step=1e-3, end=0.1)
    p = ex.B1
    assert np.allclose(res["spring.F"], -(p["k"] * res["mass.x"] + p["c"] * res["mass.v"]),
                       rtol=1e-12, atol=1e-12)


def test_multirate_substeps_improve_a_subsystem_without_input_derivatives():
    # The B1 mass without input derivatives holds the force over each of its steps;
    # sub-stepping it (the glue polynomial re-sampled at every sub-step) converges to
    # the polynomial input.
    def run(k):
        mass = ex.b1_mass()
        mass.input_derivative_order = 0
        spring = ex.b1_spring()
        sim = Cosimulation([mass, spring], ex.B1_RELATIONS,
                           TimeManager(step=1e-4, end=0.5, substeps={"mass": k}),
                           Glue("quadratic"), ErrorPolicy(divergence="warning"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CosimulationWarning)
            res = sim.run()
        return np.abs(res["mass.x"] - ex.b1_reference(res.time)).max()
    e1, e4, e16 = run(1), run(4), run(16)
    assert e4 < e1 / 3 and e16 < e4 / 3


def test_internal_step_larger_than_the_communication_step_is_refused():
    mass, spring = ex.b1_subsystems()
    slow = PythonSubsystem(ex.OscillatorMass(1, 0, 1), "mass", [("F", "N")],
                           [("x", "m"), ("v", "m/s")], direct_feedthrough=False, max_step=2e-3)
    with pytest.raises(CosimulationError, match=r"subsystem 'mass': internal step 0.002 s "
                                                r"exceeds its communication step 0.0005 s"):
        Cosimulation([slow, spring], ex.B1_RELATIONS,
                     TimeManager(step=1e-3, end=1.0, substeps={"mass": 2}))


def test_callback_and_progress_bar(capsys):
    seen = []
    res = cosimulate(list(ex.b1_subsystems()), ex.B1_RELATIONS, step=1e-3, end=0.2,
                     progress=True, callback=lambda r: seen.append((r.status, len(r))))
    assert seen[-1] == ("completed", 201)
    assert [n for s, n in seen[:-1]] == sorted(n for s, n in seen[:-1])
    assert all(s == "running" for s, _ in seen[:-1]) and len(seen) > 10
    assert res.info["wall_time"] > 0


def test_a_callback_error_stops_the_run_and_is_not_disguised():
    def bad(_):
        raise KeyError("plot")
    with pytest.raises(KeyError):
        cosimulate(list(ex.b1_subsystems()), ex.B1_RELATIONS, step=1e-3, end=0.1, callback=bad)


def test_construction_errors_list_every_problem():
    with pytest.raises(CosimulationError) as info:
        Cosimulation(["not a subsystem"], "rel", TimeManager(step=0.1, end=1.0))
    assert len(info.value.problems) == 2
    assert "subsystems[0]: found str, expected a Subsystem" in str(info.value)
    assert "relations: found str, expected Relations" in str(info.value)


def test_results_csv_round_trip(tmp_path):
    res = cosimulate(list(ex.b1_subsystems()), ex.B1_RELATIONS, step=1e-3, end=0.01)
    path = res.to_csv(tmp_path / "b1.csv")
    lines = path.read_text().splitlines()
    assert lines[0].startswith("time [s],out:mass.x [m],out:mass.v [m/s],out:spring.F [N]")
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    assert data.shape == (11, 1 + 3 + 3 + 1)
    assert np.allclose(data[:, 1], res["mass.x"])
    path = res.to_csv(tmp_path / "x.csv", names=["mass.x"])
    assert path.read_text().splitlines()[0] == "time [s],mass.x [m]"
    with pytest.raises(ParameterError, match="signal 'mass.y': not in the results"):
        res["mass.y"]


def test_energy_residual_is_recorded_and_small_for_an_accurate_run():
    res = cosimulate(list(ex.b3_subsystems()), ex.B3_RELATIONS, step=1e-4, end=1.0)
    resid = res["hyd.F*mech.v"]
    work = np.cumsum(np.abs(res["hyd.F"] * res["mech.v"])) * 1e-4
    assert abs(resid[-1]) < 1e-4 * work[-1]
    assert resid[0] == 0.0


def test_state_space_output_follows_the_input_polynomial_after_a_step():
    gain = StateSpaceSubsystem("g", A=np.zeros((0, 0)), B=np.zeros((0, 1)), C=np.zeros((1, 0)),
                               D=[[2.0]], x0=np.zeros(0), inputs=[("u", "1")],
                               outputs=[("y", "1")])
    gain.set_inputs(0.0, np.array([1.0]), np.array([[3.0], [4.0]]))
    gain.do_step(0.0, 0.5)
    # u(0.5) = 1 + 3*0.5 + 4*0.25/2 = 3
    assert gain.get_outputs()[0] == pytest.approx(6.0)
    assert math.isclose(gain.get_output_derivatives(1)[0, 0], 2 * (3 + 4 * 0.5))


def test_a_failing_derivative_hook_at_start_up_names_the_subsystem():
    class NoDerivatives(Subsystem):
        output_derivative_order = 1   # declared, but the hook is left out

        def __init__(self):
            super().__init__("valve", [("u", "1")], [("y", "1")], direct_feedthrough=False)

        def set_inputs(self, t, values, derivatives):
            pass

        def get_outputs(self):
            return np.zeros(1)

        def do_step(self, t, h):
            return None
    other = PythonSubsystem(Ramp(), "other", [("u", "1")], [("y", "1")],
                            direct_feedthrough=False)
    with pytest.raises(CosimulationError) as info, pytest.warns(CosimulationWarning):
        cosimulate([NoDerivatives(), other], ["valve.y -> other.u", "other.y -> valve.u"],
                   step=0.1, end=1.0, glue="quadratic")
    msg = str(info.value)
    assert "step_failed" in msg and "subsystem 'valve'" in msg
    assert "declares output_derivative_order=1 but does not implement" in msg
    assert info.value.time == 0.0 and len(info.value.results) == 1
