"""The machine-file reference, generated from the key tables the reader checks against.

``{machine-keys} SECTION`` renders one table of a machine file (``body``, ``cylinder``,
``circuit.oil``...) as a table of key, value, required or default, check and meaning.
The rows come from the tables :mod:`mechanisms.machine.description` and the circuit
builders read files with (``_BODY``, ``_CYLINDER``, ``OC_KEYS``,
``LS_POWER_UNIT_SCHEMA``...), so the reference cannot drift from the reader: a key
added without a description is a build warning (an error under ``-W``), and so is a
section of :data:`SECTIONS` that is never shown (``tests/test_docs_tables.py`` checks
the descriptions without Sphinx). ``{machine-file-example}`` shows the annotated
example of the reader's own docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Row", "SECTIONS", "rows", "undocumented", "setup"]


@dataclass(frozen=True)
class Row:
    """One key of a machine-file table, as the reference shows it."""

    key: str
    value: str       # what is written: a quantity in a unit, a point, a name...
    default: str     # "required", "optional" or the default value
    check: str       # "> 0", "≥ 0", "≥ 1", a range, or ""
    doc: str


def _fmt(x: Any, unit: str) -> str:
    """A default as the reference shows it: text as written, numbers with their SI unit."""
    if isinstance(x, str):
        return x
    text = f"{x:g}" if isinstance(x, float) else str(x)
    return f"{text} {unit}" if unit else text


_CHECKS = {"positive": "> 0", "nonneg": "≥ 0", "ge1": "≥ 1", None: ""}
_KINDS = {"point": "[x, y] in {unit}", "int": "integer", "number": "number", "text": "text",
          "name": "name", "table": "table"}


def _key_rows(keys) -> list[Row]:
    out = []
    for k in keys:
        if k.kind == "quantity":
            value = f"quantity in {k.unit}" if k.unit else "number"
        else:
            value = _KINDS.get(k.kind, k.kind).format(unit=k.unit)
        if k.required:
            default = "required"
        elif k.default is None:
            default = "optional"
        else:
            default = _fmt(k.default, k.unit)
        out.append(Row(k.name, value, default, _CHECKS.get(k.check, k.check or ""), k.doc))
    return out


def _dict_rows(table: dict[str, tuple], docs: Callable[[str], str]) -> list[Row]:
    out = []
    for name, (unit, default, check) in table.items():
        value = f"quantity in {unit}" if unit else "number"
        if default is ...:
            d = "required"
        elif default is None:
            d = "optional"
        else:
            d = _fmt(default, unit)
        out.append(Row(name, value, d, _CHECKS.get(check, check or ""), docs(name)))
    return out


def _spec_rows(specs) -> list[Row]:
    out = []
    for s in specs:
        value = f"quantity in {s.unit}" if s.unit else "number"
        if s.required:
            d = "required"
        elif s.default is None:
            d = "optional"
        else:
            d = _fmt(s.default, s.unit)
        checks = []
        if s.positive:
            checks.append("> 0")
        if s.minimum is not None:
            checks.append(f"≥ {s.minimum:g}")
        if s.maximum is not None:
            checks.append(f"≤ {s.maximum:g}")
        out.append(Row(s.name, value, d, ", ".join(checks), s.doc))
    return out


def _schema_doc(schema, rename: dict[str, str] | None = None) -> Callable[[str], str]:
    specs = {s.name: s.doc for s in schema.specs}
    rename = rename or {}
    return lambda name: specs.get(rename.get(name, name), "")


#: the machine file's ``[circuit.valves.<function>]`` keys under their drive-schema names
VALVE_RENAME = {"flow": "valve_flow", "dp": "valve_dp", "leakage": "valve_leakage"}


def _machine():
    from mechanisms.machine import description as d
    return d


def _oil() -> list[Row]:
    from components.hydraulics.oil import OIL_SCHEMA
    from mechanisms.machine import circuits as c
    return _dict_rows(c._OIL, _schema_doc(OIL_SCHEMA))


def _power_unit() -> list[Row]:
    from components.hydraulics.params import POWER_UNIT_SCHEMA
    from mechanisms.machine import circuits as c
    return _dict_rows(c._POWER_UNIT, _schema_doc(POWER_UNIT_SCHEMA))


def _valves() -> list[Row]:
    from components.hydraulics.params import DRIVE_SCHEMA
    from mechanisms.machine import circuits as c
    return _dict_rows(c._VALVE, _schema_doc(DRIVE_SCHEMA, VALVE_RENAME))


def _swing_valve() -> list[Row]:
    from components.hydraulics.params import DRIVE_SCHEMA
    from mechanisms.machine import circuits_swing as cs
    return _dict_rows(cs.SWING_VALVE_KEYS, _schema_doc(DRIVE_SCHEMA, VALVE_RENAME))


def _load_sensing() -> list[Row]:
    from mechanisms.machine import circuits_ls as ls
    pu_schema, ls_schema, _shared, pump, section = ls._schemas()
    specs = {s.name: s for s in pu_schema.specs}
    specs.update({s.name: s for s in ls_schema.specs})
    out = _spec_rows([specs[k] for k in pump + section])
    for k in ls._COMPENSATOR_KEYS:
        value = "text" if k == "compensation" else "quantity in Pa"
        default = {"compensation": "required", "pre_compensator_setting": "optional",
                   "post_compensator_offset": "0 Pa"}[k]
        out.append(Row(k, value, default, "", ls._COMPENSATOR_DOCS.get(k, "")))
    return out


def _open_centre() -> list[Row]:
    from mechanisms.machine import circuits_oc as oc
    return _dict_rows(oc.OC_KEYS, lambda k: oc._OC_DOCS.get(k, ""))


#: every table of a machine file that has a fixed set of keys → how to get its rows
SECTIONS: dict[str, Callable[[], list[Row]]] = {
    "machine": lambda: _key_rows(_machine()._MACHINE),
    "body": lambda: _key_rows(_machine()._BODY),
    "lever": lambda: _key_rows(_machine()._LEVER),
    "cylinder": lambda: _key_rows(_machine()._CYLINDER),
    "cylinder.friction": lambda: _key_rows(_machine()._FRICTION),
    "cylinder.end_stop": lambda: _key_rows(_machine()._END_STOP),
    "payloads": lambda: _key_rows(_machine()._PAYLOAD),
    "base": lambda: _key_rows(_machine()._BASE),
    "base.masses": lambda: _key_rows(_machine()._BASE_MASS),
    "soil": lambda: _key_rows(_machine()._SOIL),
    "swing": lambda: _key_rows(_machine()._SWING),
    "travel": lambda: _key_rows(_machine()._TRAVEL),
    "circuit.oil": _oil,
    "circuit.power_unit": _power_unit,
    "circuit.valves": _valves,
    "circuit.valves.swing": _swing_valve,
    "circuit.load_sensing": _load_sensing,
    "circuit.open_centre": _open_centre,
}


def rows(section: str) -> list[Row]:
    """The rows of one table of :data:`SECTIONS`."""
    return SECTIONS[section]()


def undocumented() -> list[str]:
    """``section.key`` of every key that has no description (should be empty)."""
    return [f"{s}.{r.key}" for s in SECTIONS for r in rows(s) if not r.doc.strip()]


# --------------------------------------------------------------------------- Sphinx
def setup(app) -> dict:
    from docutils import nodes
    from docutils.parsers.rst import directives
    from sphinx.util import logging
    from sphinx.util.docutils import SphinxDirective

    logger = logging.getLogger(__name__)

    def _table(header: list[str], body: list[list[str]], widths: list[int]) -> nodes.table:
        table = nodes.table(classes=["machine-keys"])
        group = nodes.tgroup(cols=len(header))
        table += group
        for w in widths:
            group += nodes.colspec(colwidth=w)
        thead = nodes.thead()
        group += thead
        tbody = nodes.tbody()
        group += tbody
        for target, cells in ((thead, [header]), (tbody, body)):
            for cells_row in cells:
                row = nodes.row()
                for i, text in enumerate(cells_row):
                    entry = nodes.entry()
                    para = nodes.paragraph()
                    para += nodes.literal(text=text) if (i == 0 and target is tbody) else nodes.Text(text)
                    entry += para
                    row += entry
                target += row
        return table

    class MachineKeys(SphinxDirective):
        """``{machine-keys} SECTION``: the keys of one machine-file table."""

        required_arguments = 1
        has_content = False

        def run(self):
            section = self.arguments[0]
            if section not in SECTIONS:
                raise self.error(f"machine-keys: unknown section {section!r} (known: {', '.join(SECTIONS)})")
            self.env.note_dependency(__file__)
            shown = self.env.domaindata.setdefault("machine_keys", {})
            shown[section] = self.env.docname
            body = [[r.key, r.value, r.default, r.check, r.doc] for r in rows(section)]
            for r in rows(section):
                if not r.doc.strip():
                    logger.warning(f"machine file [{section}] key {r.key!r} has no description: add one "
                                   "where the key is declared", location=self.get_location())
            return [_table(["key", "value", "default", "check", "meaning"], body, [18, 22, 14, 8, 48])]

    class MachineFileExample(SphinxDirective):
        """``{machine-file-example} MODULE``: the ``::`` literal block of a module's docstring."""

        required_arguments = 1
        option_spec = {"caption": directives.unchanged}

        def run(self):
            import importlib
            import inspect

            mod = importlib.import_module(self.arguments[0])
            doc = inspect.getdoc(mod) or ""
            lines = doc.splitlines()
            try:
                i = next(n for n, line in enumerate(lines) if line.rstrip().endswith("::"))
            except StopIteration:
                raise self.error(f"{self.arguments[0]}: its docstring has no '::' example block")
            block = []
            for line in lines[i + 1:]:
                if line.strip() and not line.startswith("    "):
                    break
                block.append(line[4:])
            text = "\n".join(block).strip("\n")
            node = nodes.literal_block(text, text, language="toml")
            return [node]

    def _all_shown(app, env):
        shown = env.domaindata.get("machine_keys", {})
        missing = [s for s in SECTIONS if s not in shown]
        if missing:
            logger.warning(f"machine-file reference: no page shows the table(s) {', '.join(missing)} "
                           "(add a {machine-keys} directive)")

    def _purge(app, env, docname):
        shown = env.domaindata.get("machine_keys", {})
        for s in [s for s, d in shown.items() if d == docname]:
            del shown[s]

    def _merge(app, env, docnames, other):
        env.domaindata.setdefault("machine_keys", {}).update(other.domaindata.get("machine_keys", {}))

    app.add_directive("machine-keys", MachineKeys)
    app.add_directive("machine-file-example", MachineFileExample)
    app.connect("env-check-consistency", _all_shown)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
