/* The FMI 2.0 interface of a standalone FMU exported by bondgraph.export.fmu.

   Compiled at export time together with the model's generated C (bondgraph.codegen:
   bg_rhs, bg_jac, bg_out) and the header "bgf_model.h" that bondgraph.export.fmu writes
   (sizes, value references, start values, parameters, tolerances). No Python, no LAPACK:
   the coupled algebraic blocks of the model are solved with the small LU below.

   Model exchange: states, derivatives (bg_rhs), outputs (bg_out), inputs; no event
   indicators but the state crossings the exporter names (stroke ends): the integrator is
   restarted there; the model's other switching laws are integrated through, as the native
   run integrates them.
   Co-simulation (BGF_CS = 1): fmi2DoStep steps SUNDIALS CVODE (BDF, dense direct solver,
   the generated analytic Jacobian bg_jac) over the communication step; inputs are held,
   or ramped with the first-order input derivatives of fmi2SetRealInputDerivatives. The
   SUNDIALS 7 shared libraries are bundled next to this library (rpath $ORIGIN). The part
   of the SUNDIALS API used is declared here (32-bit sunindextype, double reals), as in
   bondgraph/native/driver.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "bgf_model.h"

/* ------------------------------------------------------------------ the generated model */
typedef void (*bgf_getrf_t)(int*, int*, double*, int*, int*, int*);
typedef void (*bgf_getrs_t)(char*, int*, int*, double*, int*, int*, double*, int*, int*);
int bg_rhs(double t, const double* xs, const double* us, const double* dus, const double* ps,
           double* Us, double* out, double* work, int mode);
int bg_jac(double t, const double* xs, const double* us, const double* dus, const double* ps,
           double* Us, double* out, double* work, int mode);
int bg_out(double t, const double* xs, const double* us, const double* dus, const double* ps,
           double* Us, double* out, double* work, int mode);
void bg_set_lapack(void* f, void* s);

/* LU with partial pivoting of the column-major n x n A (lda = n); 1-based pivots, info > 0:
   a zero pivot (the dgetrf contract the generated code relies on). */
static void bgf_getrf(int* m, int* n, double* A, int* lda, int* piv, int* info) {
    int N = *n, L = *lda, i, j, k;
    (void)m;
    *info = 0;
    for (k = 0; k < N; ++k) {
        int p = k; double big = fabs(A[k * L + k]);
        for (i = k + 1; i < N; ++i) if (fabs(A[k * L + i]) > big) { big = fabs(A[k * L + i]); p = i; }
        piv[k] = p + 1;
        if (big == 0.0) { if (*info == 0) *info = k + 1; continue; }
        if (p != k) for (j = 0; j < N; ++j) { double s = A[j * L + k]; A[j * L + k] = A[j * L + p]; A[j * L + p] = s; }
        for (i = k + 1; i < N; ++i) A[k * L + i] /= A[k * L + k];
        for (j = k + 1; j < N; ++j) {
            double a = A[j * L + k];
            if (a != 0.0) for (i = k + 1; i < N; ++i) A[j * L + i] -= A[k * L + i] * a;
        }
    }
}

static void bgf_getrs(char* tr, int* n, int* nrhs, double* A, int* lda, int* piv, double* B,
                      int* ldb, int* info) {
    int N = *n, L = *lda, LB = *ldb, c, i, k;
    (void)tr;
    *info = 0;
    for (c = 0; c < *nrhs; ++c) {
        double* b = B + c * LB;
        for (k = 0; k < N; ++k) { int p = piv[k] - 1; if (p != k) { double s = b[k]; b[k] = b[p]; b[p] = s; } }
        for (k = 0; k < N; ++k) for (i = k + 1; i < N; ++i) b[i] -= A[k * L + i] * b[k];
        for (k = N - 1; k >= 0; --k) { b[k] /= A[k * L + k]; for (i = 0; i < k; ++i) b[i] -= A[k * L + i] * b[k]; }
    }
}

#if BGF_CS
/* ------------------------------------------------------------------ SUNDIALS 7 (declared) */
typedef double sunrealtype;
typedef int sunindextype;
typedef struct _SUNContext* SUNContext;
typedef struct _generic_N_Vector* N_Vector;
typedef struct _generic_SUNMatrix* SUNMatrix;
typedef struct _generic_SUNLinearSolver* SUNLinearSolver;
typedef int (*CVRhsFn)(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data);
typedef int (*CVLsJacFn)(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* user_data,
                         N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
int SUNContext_Create(int comm, SUNContext* sunctx_out);
int SUNContext_Free(SUNContext* sunctx);
N_Vector N_VNew_Serial(sunindextype length, SUNContext sunctx);
void N_VDestroy(N_Vector v);
sunrealtype* N_VGetArrayPointer(N_Vector v);
SUNMatrix SUNDenseMatrix(sunindextype M, sunindextype N, SUNContext sunctx);
sunrealtype* SUNDenseMatrix_Data(SUNMatrix A);
void SUNMatDestroy(SUNMatrix A);
SUNLinearSolver SUNLinSol_Dense(N_Vector y, SUNMatrix A, SUNContext sunctx);
int SUNLinSolFree(SUNLinearSolver S);
void* CVodeCreate(int lmm, SUNContext sunctx);
int CVodeInit(void* mem, CVRhsFn f, sunrealtype t0, N_Vector y0);
int CVodeReInit(void* mem, sunrealtype t0, N_Vector y0);
int CVodeSVtolerances(void* mem, sunrealtype reltol, N_Vector abstol);
int CVodeSetUserData(void* mem, void* user_data);
int CVodeSetLinearSolver(void* mem, SUNLinearSolver LS, SUNMatrix A);
int CVodeSetJacFn(void* mem, CVLsJacFn jac);
int CVodeSetMaxNumSteps(void* mem, long int mxsteps);
int CVodeSetStopTime(void* mem, sunrealtype tstop);
typedef int (*CVRootFn)(sunrealtype t, N_Vector y, sunrealtype* gout, void* user_data);
int CVodeRootInit(void* mem, int nrtfn, CVRootFn g);
int CVode(void* mem, sunrealtype tout, N_Vector yout, sunrealtype* tret, int itask);
void CVodeFree(void** mem);
#define BGF_CV_BDF 2
#define BGF_CV_NORMAL 1
#define BGF_CV_ROOT_RETURN 2
#endif

/* ------------------------------------------------------------------ the instance */
#define BGF_N(n) ((n) > 0 ? (n) : 1)
enum { BGF_INSTANTIATED, BGF_INIT, BGF_RUNNING, BGF_TERMINATED, BGF_ERROR };

typedef struct {
    fmi2CallbackFunctions cb;
    char* name;
    fmi2Type type;
    int state, logging;
    double t, t_step;          /* time; start of the current co-simulation step */
    double x[BGF_N(BGF_NX)], xdot[BGF_NX + 3];
    double u[BGF_N(BGF_NIN)], du[BGF_N(BGF_NIN)], u_eff[BGF_N(BGF_NIN)], dus[1];
    double p[BGF_N(BGF_NP)];
    double U[BGF_N(BGF_NUNK)];
    double y[BGF_N(BGF_NOUT)];
    double* work;
    double* jac;
    int have_out;              /* y is that of (t, x, u) */
    double rtol;
#if BGF_CS
    SUNContext ctx;
    void* cv;
    N_Vector yv, atol;
    SUNMatrix A;
    SUNLinearSolver LS;
    int restart;               /* inputs changed: CVodeReInit before the next step */
#endif
} Inst;

typedef struct {               /* an FMU state (fmi2GetFMUstate) */
    double t; double x[BGF_N(BGF_NX)]; double u[BGF_N(BGF_NIN)]; double du[BGF_N(BGF_NIN)];
    double p[BGF_N(BGF_NP)]; int state;
} Saved;

static void logf_(Inst* c, fmi2Status st, const char* cat, const char* fmt, ...) {
    char msg[512];
    va_list ap;
    if (!c || !c->cb.logger) return;
    if (st == fmi2OK && !c->logging) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->cb.logger(c->cb.componentEnvironment, c->name, st, cat, "%s", msg);
}

static const char* bgf_status_text(int st) {
    if (st <= -1000) return "a non-finite state derivative";
    if (st > 0) return "a singular algebraic block (kinematic singularity, zero modulus)";
    return "non-finite values or no convergence in an algebraic block";
}

/* the inputs at time t: held, or ramped with their derivatives from the step's start */
static const double* inputs_at(Inst* c, double t) {
    int j;
    for (j = 0; j < BGF_NIN; ++j) c->u_eff[j] = c->u[j] + c->du[j] * (t - c->t_step);
    return c->u_eff;
}

static int eval_rhs(Inst* c, double t, const double* x, double* xdot) {
    return bg_rhs(t, x, inputs_at(c, t), c->dus, c->p, c->U, xdot, c->work, 0);
}

static fmi2Status eval_outputs(Inst* c) {
    int st;
    if (c->have_out) return fmi2OK;
    st = bg_out(c->t, c->x, inputs_at(c, c->t), c->dus, c->p, c->U, c->y, c->work, 0);
    if (st != 0) {
        logf_(c, fmi2Error, "logStatusError", "outputs at t = %g: %s (status %d)", c->t, bgf_status_text(st), st);
        return fmi2Error;
    }
    c->have_out = 1;
    return fmi2OK;
}

/* the event indicators: sign * (x[k] - threshold), state crossings (stroke ends) */
static void indicators(const double* x, double* g) {
    int k;
    for (k = 0; k < BGF_NEV; ++k) g[k] = bgf_ev_sign[k] * (x[bgf_ev_idx[k]] - bgf_ev_thr[k]);
    (void)x; (void)g;
}

/* ------------------------------------------------------------------ co-simulation solver */
#if BGF_CS
static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
    Inst* c = (Inst*)data;
    double* f = N_VGetArrayPointer(ydot);
    int st = eval_rhs(c, t, N_VGetArrayPointer(y), c->xdot), i;
    if (st != 0) return 1;    /* recoverable: CVODE retries with a smaller step */
    for (i = 0; i < BGF_NX; ++i) f[i] = c->xdot[i];
    return 0;
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* data,
                  N_Vector t1, N_Vector t2, N_Vector t3) {
    Inst* c = (Inst*)data;
    double* M = SUNDenseMatrix_Data(J);
    int st, i, k;
    (void)fy; (void)t1; (void)t2; (void)t3;
    st = bg_jac(t, N_VGetArrayPointer(y), inputs_at(c, t), c->dus, c->p, c->U, c->jac, c->work, 0);
    if (st != 0) return 1;
    /* bg_jac: row-major out[r * nx + col]; the dense matrix: column-major */
    for (i = 0; i < BGF_NX; ++i) for (k = 0; k < BGF_NX; ++k) M[k * BGF_NX + i] = c->jac[i * BGF_NX + k];
    return 0;
}

static int cv_roots(sunrealtype t, N_Vector y, sunrealtype* g, void* data) {
    (void)t; (void)data;
    indicators(N_VGetArrayPointer(y), g);
    return 0;
}

static void cv_free(Inst* c) {
    if (c->cv) CVodeFree(&c->cv);
    if (c->LS) SUNLinSolFree(c->LS);
    if (c->A) SUNMatDestroy(c->A);
    if (c->yv) N_VDestroy(c->yv);
    if (c->atol) N_VDestroy(c->atol);
    if (c->ctx) SUNContext_Free(&c->ctx);
    c->cv = NULL; c->LS = NULL; c->A = NULL; c->yv = NULL; c->atol = NULL; c->ctx = NULL;
}

static int cv_setup(Inst* c) {
    int i;
    double* a;
    if (SUNContext_Create(0, &c->ctx) != 0) return -1;
    c->yv = N_VNew_Serial(BGF_NX, c->ctx);
    c->atol = N_VNew_Serial(BGF_NX, c->ctx);
    if (!c->yv || !c->atol) return -1;
    memcpy(N_VGetArrayPointer(c->yv), c->x, BGF_NX * sizeof(double));
    a = N_VGetArrayPointer(c->atol);
    for (i = 0; i < BGF_NX; ++i) a[i] = BGF_ATOL * bgf_nominal[i];
    c->cv = CVodeCreate(BGF_CV_BDF, c->ctx);
    if (!c->cv) return -1;
    if (CVodeInit(c->cv, cv_rhs, c->t, c->yv) != 0) return -1;
    if (CVodeSVtolerances(c->cv, c->rtol, c->atol) != 0) return -1;
    CVodeSetUserData(c->cv, c);
    c->A = SUNDenseMatrix(BGF_NX, BGF_NX, c->ctx);
    c->LS = c->A ? SUNLinSol_Dense(c->yv, c->A, c->ctx) : NULL;
    if (!c->LS) return -1;
    if (CVodeSetLinearSolver(c->cv, c->LS, c->A) != 0) return -1;
    CVodeSetJacFn(c->cv, cv_jac);
    CVodeSetMaxNumSteps(c->cv, 1000000L);
    if (BGF_NEV > 0 && CVodeRootInit(c->cv, BGF_NEV, cv_roots) != 0) return -1;
    c->restart = 0;
    return 0;
}
#endif

/* ------------------------------------------------------------------ common functions */
const char* fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char* fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean on, size_t n, const fmi2String cats[]) {
    (void)n; (void)cats;
    ((Inst*)comp)->logging = on ? 1 : 0;
    return fmi2OK;
}

static void reset_values(Inst* c) {
    memcpy(c->x, bgf_x0, sizeof(double) * BGF_NX);
    memcpy(c->p, bgf_p0, sizeof(double) * BGF_NP);
    memcpy(c->u, bgf_u0, sizeof(double) * BGF_NIN);
    memset(c->du, 0, sizeof c->du);
    c->t = c->t_step = 0.0;
    c->have_out = 0;
    c->rtol = BGF_RTOL;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String location,
                              const fmi2CallbackFunctions* cb, fmi2Boolean visible, fmi2Boolean logging) {
    Inst* c;
    (void)location; (void)visible;
    if (!cb || !cb->allocateMemory || !cb->freeMemory) return NULL;
    if (!guid || strcmp(guid, BGF_GUID) != 0) {
        if (cb->logger) cb->logger(cb->componentEnvironment, name, fmi2Error, "logStatusError",
                                   "fmi2Instantiate: GUID %s does not match this FMU's %s", guid ? guid : "(null)", BGF_GUID);
        return NULL;
    }
#if !BGF_CS
    if (type == fmi2CoSimulation) {
        if (cb->logger) cb->logger(cb->componentEnvironment, name, fmi2Error, "logStatusError",
                                   "fmi2Instantiate: this FMU was exported for model exchange only");
        return NULL;
    }
#endif
    c = (Inst*)cb->allocateMemory(1, sizeof(Inst));
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->cb = *cb;
    c->name = (char*)cb->allocateMemory(strlen(name ? name : "") + 1, 1);
    c->work = (double*)cb->allocateMemory(BGF_N(BGF_WORK) + 1, sizeof(double));
    c->jac = (double*)cb->allocateMemory(BGF_N(BGF_NX * BGF_NX), sizeof(double));
    if (!c->name || !c->work || !c->jac) return NULL;
    strcpy(c->name, name ? name : "");
    /* work[0]: the generated code's pointer to native input tables; zero = none (calloc) */
    memset(c->work, 0, (BGF_N(BGF_WORK) + 1) * sizeof(double));
    c->type = type;
    c->logging = logging ? 1 : 0;
    bg_set_lapack((void*)bgf_getrf, (void*)bgf_getrs);
    reset_values(c);
    c->state = BGF_INSTANTIATED;
    return c;
}

void fmi2FreeInstance(fmi2Component comp) {
    Inst* c = (Inst*)comp;
    if (!c) return;
#if BGF_CS
    cv_free(c);
#endif
    c->cb.freeMemory(c->work);
    c->cb.freeMemory(c->jac);
    c->cb.freeMemory(c->name);
    c->cb.freeMemory(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean tolDefined, fmi2Real tol,
                               fmi2Real start, fmi2Boolean stopDefined, fmi2Real stop) {
    Inst* c = (Inst*)comp;
    (void)stopDefined; (void)stop;
    c->t = c->t_step = start;
    if (tolDefined && tol > 0 && tol < 1) c->rtol = tol;
    c->have_out = 0;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp) { ((Inst*)comp)->state = BGF_INIT; return fmi2OK; }

fmi2Status fmi2ExitInitializationMode(fmi2Component comp) {
    Inst* c = (Inst*)comp;
    c->state = BGF_RUNNING;
    c->have_out = 0;
#if BGF_CS
    if (c->type == fmi2CoSimulation) {
        cv_free(c);
        if (cv_setup(c) != 0) {
            logf_(c, fmi2Error, "logStatusError", "CVODE could not be set up (%d states)", BGF_NX);
            c->state = BGF_ERROR;
            return fmi2Error;
        }
    }
#endif
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component comp) { ((Inst*)comp)->state = BGF_TERMINATED; return fmi2OK; }

fmi2Status fmi2Reset(fmi2Component comp) {
    Inst* c = (Inst*)comp;
#if BGF_CS
    cv_free(c);
#endif
    reset_values(c);
    c->state = BGF_INSTANTIATED;
    return fmi2OK;
}

/* value references: [0, nx) states, [nx, 2nx) derivatives, then inputs, outputs, parameters */
#define VR_DER BGF_NX
#define VR_IN (2 * BGF_NX)
#define VR_OUT (VR_IN + BGF_NIN)
#define VR_PAR (VR_OUT + BGF_NY)
#define VR_END (VR_PAR + BGF_NP)

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2Real v[]) {
    Inst* c = (Inst*)comp;
    size_t i;
    int need_out = 0, need_der = 0;
    for (i = 0; i < n; ++i) {
        if (vr[i] >= VR_OUT && vr[i] < VR_PAR) need_out = 1;
        if (vr[i] >= VR_DER && vr[i] < VR_IN) need_der = 1;
    }
    if (need_out && eval_outputs(c) != fmi2OK) return fmi2Error;
    if (need_der) {
        int st = eval_rhs(c, c->t, c->x, c->xdot);
        if (st != 0) {
            logf_(c, fmi2Error, "logStatusError", "derivatives at t = %g: %s", c->t, bgf_status_text(st));
            return fmi2Error;
        }
    }
    for (i = 0; i < n; ++i) {
        fmi2ValueReference r = vr[i];
        if (r < VR_DER) v[i] = c->x[r];
        else if (r < VR_IN) v[i] = c->xdot[r - VR_DER];
        else if (r < VR_OUT) v[i] = c->u[r - VR_IN];
        else if (r < VR_PAR) v[i] = c->y[bgf_yidx[r - VR_OUT]];
        else if (r < VR_END) v[i] = c->p[r - VR_PAR];
        else { logf_(c, fmi2Error, "logStatusError", "fmi2GetReal: no variable with value reference %u", r); return fmi2Error; }
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2Real v[]) {
    Inst* c = (Inst*)comp;
    size_t i;
    for (i = 0; i < n; ++i) {
        fmi2ValueReference r = vr[i];
        if (r < VR_DER) {
            if (c->state != BGF_INSTANTIATED && c->state != BGF_INIT) {
                logf_(c, fmi2Error, "logStatusError", "fmi2SetReal: state %u is set only before initialisation", r);
                return fmi2Error;
            }
            c->x[r] = v[i];
        } else if (r >= VR_IN && r < VR_OUT) {
#if BGF_CS
            if (c->u[r - VR_IN] != v[i]) c->restart = 1;
#endif
            c->u[r - VR_IN] = v[i];
        } else if (r >= VR_PAR && r < VR_END) {
            if (c->state != BGF_INSTANTIATED && c->state != BGF_INIT) {
                logf_(c, fmi2Error, "logStatusError", "fmi2SetReal: parameter %u is fixed after initialisation", r);
                return fmi2Error;
            }
            c->p[r - VR_PAR] = v[i];
        } else {
            logf_(c, fmi2Error, "logStatusError", "fmi2SetReal: value reference %u is not an input, state or parameter", r);
            return fmi2Error;
        }
    }
    c->have_out = 0;
    return fmi2OK;
}

#define NO_SUCH(name) logf_((Inst*)comp, fmi2Error, "logStatusError", name ": this FMU has no such variables"); return fmi2Error
fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2Integer v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2GetInteger"); }
fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2Boolean v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2GetBoolean"); }
fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2String v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2GetString"); }
fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2Integer v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2SetInteger"); }
fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2Boolean v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2SetBoolean"); }
fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2String v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2SetString"); }

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate* s) {
    Inst* c = (Inst*)comp;
    Saved* m = *s ? (Saved*)*s : (Saved*)c->cb.allocateMemory(1, sizeof(Saved));
    if (!m) return fmi2Error;
    m->t = c->t; memcpy(m->x, c->x, sizeof m->x); memcpy(m->u, c->u, sizeof m->u);
    memcpy(m->du, c->du, sizeof m->du); memcpy(m->p, c->p, sizeof m->p); m->state = c->state;
    *s = m;
    return fmi2OK;
}

fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate s) {
    Inst* c = (Inst*)comp;
    const Saved* m = (const Saved*)s;
    c->t = c->t_step = m->t; memcpy(c->x, m->x, sizeof m->x); memcpy(c->u, m->u, sizeof m->u);
    memcpy(c->du, m->du, sizeof m->du); memcpy(c->p, m->p, sizeof m->p); c->state = m->state;
    c->have_out = 0;
#if BGF_CS
    c->restart = 1;
#endif
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate* s) {
    if (s && *s) { ((Inst*)comp)->cb.freeMemory(*s); *s = NULL; }
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate s, size_t* size) {
    (void)comp; (void)s; *size = sizeof(Saved); return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate s, fmi2Byte b[], size_t size) {
    (void)comp; if (size < sizeof(Saved)) return fmi2Error; memcpy(b, s, sizeof(Saved)); return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte b[], size_t size, fmi2FMUstate* s) {
    if (size < sizeof(Saved)) return fmi2Error;
    if (!*s) *s = ((Inst*)comp)->cb.allocateMemory(1, sizeof(Saved));
    if (!*s) return fmi2Error;
    memcpy(*s, b, sizeof(Saved));
    return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference unknown[], size_t nu,
                                        const fmi2ValueReference known[], size_t nk,
                                        const fmi2Real dk[], fmi2Real dv[]) {
    /* derivatives with respect to states, from the generated Jacobian */
    Inst* c = (Inst*)comp;
    size_t i, k;
    int st = bg_jac(c->t, c->x, inputs_at(c, c->t), c->dus, c->p, c->U, c->jac, c->work, 0);
    if (st != 0) return fmi2Error;
    for (i = 0; i < nu; ++i) {
        double s = 0.0;
        if (unknown[i] < VR_DER || unknown[i] >= VR_IN) {
            logf_(c, fmi2Error, "logStatusError", "fmi2GetDirectionalDerivative: only of state derivatives");
            return fmi2Error;
        }
        for (k = 0; k < nk; ++k) {
            if (known[k] >= VR_DER) {
                logf_(c, fmi2Error, "logStatusError", "fmi2GetDirectionalDerivative: only with respect to states");
                return fmi2Error;
            }
            s += c->jac[(unknown[i] - VR_DER) * BGF_NX + known[k]] * dk[k];
        }
        dv[i] = s;
    }
    return fmi2OK;
}

/* ------------------------------------------------------------------ model exchange */
fmi2Status fmi2EnterEventMode(fmi2Component comp) { (void)comp; return fmi2OK; }

fmi2Status fmi2NewDiscreteStates(fmi2Component comp, fmi2EventInfo* info) {
    (void)comp;
    info->newDiscreteStatesNeeded = fmi2False;
    info->terminateSimulation = fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = fmi2False;
    info->nextEventTimeDefined = fmi2False;
    info->nextEventTime = 0.0;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component comp) { (void)comp; return fmi2OK; }

fmi2Status fmi2CompletedIntegratorStep(fmi2Component comp, fmi2Boolean noSet, fmi2Boolean* enterEvent,
                                       fmi2Boolean* terminate) {
    (void)comp; (void)noSet;
    *enterEvent = fmi2False;
    *terminate = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real t) {
    Inst* c = (Inst*)comp;
    c->t = c->t_step = t;
    c->have_out = 0;
    return fmi2OK;
}

fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t nx) {
    Inst* c = (Inst*)comp;
    if (nx != BGF_NX) return fmi2Error;
    memcpy(c->x, x, nx * sizeof(double));
    c->have_out = 0;
    return fmi2OK;
}

fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real d[], size_t nx) {
    Inst* c = (Inst*)comp;
    int st;
    if (nx != BGF_NX) return fmi2Error;
    st = eval_rhs(c, c->t, c->x, c->xdot);
    if (st != 0) {
        /* discard: the integrator may retry with a smaller step */
        logf_(c, fmi2Discard, "logStatusDiscard", "derivatives at t = %g: %s (status %d)", c->t, bgf_status_text(st), st);
        return fmi2Discard;
    }
    memcpy(d, c->xdot, nx * sizeof(double));
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real g[], size_t ni) {
    if (ni != BGF_NEV) return fmi2Error;
    indicators(((Inst*)comp)->x, g);
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx) {
    Inst* c = (Inst*)comp;
    if (nx != BGF_NX) return fmi2Error;
    memcpy(x, c->x, nx * sizeof(double));
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx) {
    (void)comp;
    if (nx != BGF_NX) return fmi2Error;
    memcpy(x, bgf_nominal, nx * sizeof(double));
    return fmi2OK;
}

/* ------------------------------------------------------------------ co-simulation */
fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Integer order[], const fmi2Real v[]) {
    Inst* c = (Inst*)comp;
    size_t i;
    for (i = 0; i < n; ++i) {
        if (vr[i] < VR_IN || vr[i] >= VR_OUT || order[i] != 1) {
            logf_(c, fmi2Error, "logStatusError", "fmi2SetRealInputDerivatives: value reference %u order %d: "
                  "expected an input and order 1", vr[i], order[i]);
            return fmi2Error;
        }
#if BGF_CS
        if (c->du[vr[i] - VR_IN] != v[i]) c->restart = 1;
#endif
        c->du[vr[i] - VR_IN] = v[i];
    }
    c->have_out = 0;
    return fmi2OK;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                                        const fmi2Integer order[], fmi2Real v[]) {
    (void)vr; (void)order; (void)v;
    if (!n) return fmi2OK;
    logf_((Inst*)comp, fmi2Error, "logStatusError", "fmi2GetRealOutputDerivatives: not provided");
    return fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real tc, fmi2Real h, fmi2Boolean noSetPrior) {
#if BGF_CS
    Inst* c = (Inst*)comp;
    double tret = tc;
    int flag;
    (void)noSetPrior;
    if (c->state != BGF_RUNNING || !c->cv) {
        logf_(c, fmi2Error, "logStatusError", "fmi2DoStep: the FMU is not initialised");
        return fmi2Error;
    }
    if (fabs(tc - c->t) > 1e-9 * (1.0 + fabs(tc))) {
        logf_(c, fmi2Error, "logStatusError", "fmi2DoStep: step from %g, but the FMU is at %g", tc, c->t);
        return fmi2Error;
    }
    if (h <= 0) return h == 0 ? fmi2OK : fmi2Error;
    /* inputs (and their ramps) are those set at tc: a change restarts the integrator there */
    c->t_step = tc;
    if (c->restart) {
        memcpy(N_VGetArrayPointer(c->yv), c->x, BGF_NX * sizeof(double));
        if (CVodeReInit(c->cv, tc, c->yv) != 0) return fmi2Error;
        c->restart = 0;
    }
    CVodeSetStopTime(c->cv, tc + h);
    flag = CVode(c->cv, tc + h, c->yv, &tret, BGF_CV_NORMAL);
    while (flag == BGF_CV_ROOT_RETURN && tret < tc + h) {
        /* a stroke end crossed: restart there (as a native run restarts at a located event) */
        if (CVodeReInit(c->cv, tret, c->yv) != 0) return fmi2Error;
        flag = CVode(c->cv, tc + h, c->yv, &tret, BGF_CV_NORMAL);
    }
    if (flag < 0) {
        logf_(c, fmi2Error, "logStatusError", "CVODE failed at t = %g (flag %d)", tret, flag);
        c->state = BGF_ERROR;
        return fmi2Error;
    }
    memcpy(c->x, N_VGetArrayPointer(c->yv), BGF_NX * sizeof(double));
    /* the inputs as they are at the step's end (held or ramped); the next step starts there */
    {
        int j;
        for (j = 0; j < BGF_NIN; ++j) c->u[j] += c->du[j] * (tc + h - tc);
    }
    c->t = c->t_step = tc + h;
    c->have_out = 0;
    return fmi2OK;
#else
    (void)comp; (void)tc; (void)h; (void)noSetPrior;
    return fmi2Error;
#endif
}

fmi2Status fmi2CancelStep(fmi2Component comp) { (void)comp; return fmi2Error; }
fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Status* v) { (void)comp; (void)k; *v = fmi2OK; return fmi2OK; }
fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Real* v) {
    Inst* c = (Inst*)comp;
    if (k == fmi2LastSuccessfulTime) { *v = c->t; return fmi2OK; }
    return fmi2Discard;
}
fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Integer* v) { (void)comp; (void)k; (void)v; return fmi2Discard; }
fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Boolean* v) { (void)comp; (void)k; (void)v; return fmi2Discard; }
fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind k, fmi2String* v) { (void)comp; (void)k; (void)v; return fmi2Discard; }
