/* The FMI runtime of a standalone FMU exported by bondgraph.export.fmu: FMI 2.0 or 3.0.

   Compiled at export time together with the model's generated C (bondgraph.codegen:
   bg_rhs, bg_jac, bg_out) and the header "bgf_model.h" that bondgraph.export.fmu writes
   (the FMI version BGF_FMI, sizes, value references, start values, parameters,
   tolerances). No Python, no LAPACK: the coupled algebraic blocks of the model are solved
   with the small LU below.

   One core for both versions (the instance, its values, the equations, the solver), then
   the entry points of the version compiled: thin wrappers that translate the calling
   conventions (the fmi2… functions, or the fmi3… functions).

   Model exchange: states, derivatives (bg_rhs), outputs (bg_out), inputs; no event
   indicators but the state crossings the exporter names (stroke ends): the integrator is
   restarted there; the model's other switching laws are integrated through, as the native
   run integrates them.
   Co-simulation (BGF_CS = 1): a step steps SUNDIALS CVODE (BDF, dense direct solver,
   the generated analytic Jacobian bg_jac) over the communication step; inputs are held,
   or follow the polynomial of their first and second derivatives (FMI 2:
   fmi2SetRealInputDerivatives; FMI 3: the input derivative variables der(u), der(u,2)). The SUNDIALS 7 shared libraries are bundled next
   to this library (rpath $ORIGIN). The part of the SUNDIALS API used is declared here
   (32-bit sunindextype, double reals), as in bondgraph/native/driver.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bgf_model.h"
#ifndef BGF_FMI
#define BGF_FMI 2
#endif
#if BGF_FMI == 3
#include "fmi3Functions.h"
typedef fmi3LogMessageCallback bgf_logger_t;
#else
#include "fmi2Functions.h"
typedef fmi2CallbackLogger bgf_logger_t;
#endif

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
/* statuses: the values of fmi2Status and fmi3Status alike */
enum { ST_OK = 0, ST_WARNING = 1, ST_DISCARD = 2, ST_ERROR = 3 };
typedef void* (*bgf_alloc_t)(size_t, size_t);
typedef void (*bgf_free_t)(void*);

typedef struct {
    void* env;                 /* the importer's environment, passed back to its logger */
    bgf_logger_t logger;
    bgf_alloc_t alloc;
    bgf_free_t dealloc;
    char* name;
    int cs;                    /* instantiated for co-simulation */
    int state, logging;
    double t, t_step;          /* time; start of the current co-simulation step */
    double x[BGF_N(BGF_NX)], xdot[BGF_NX + 3];
    double u[BGF_N(BGF_NIN)], du[BGF_N(BGF_NIN)], d2u[BGF_N(BGF_NIN)], u_eff[BGF_N(BGF_NIN)], dus[1];
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

typedef struct {               /* an FMU state (fmi2GetFMUstate, fmi3GetFMUState) */
    double t; double x[BGF_N(BGF_NX)]; double u[BGF_N(BGF_NIN)]; double du[BGF_N(BGF_NIN)];
    double d2u[BGF_N(BGF_NIN)]; double p[BGF_N(BGF_NP)]; int state;
} Saved;

/* the version's logger call (its entry points below) */
static void bgf_emit(Inst* c, int st, const char* cat, const char* msg);

static void logf_(Inst* c, int st, const char* cat, const char* fmt, ...) {
    char msg[512];
    va_list ap;
    if (!c || !c->logger) return;
    if (st == ST_OK && !c->logging) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bgf_emit(c, st, cat, msg);
}

static const char* bgf_status_text(int st) {
    if (st <= -1000) return "a non-finite state derivative";
    if (st > 0) return "a singular algebraic block (kinematic singularity, zero modulus)";
    return "non-finite values or no convergence in an algebraic block";
}

/* the inputs at time t: held, or the polynomial of their first and second derivatives from
   the step's start */
static const double* inputs_at(Inst* c, double t) {
    int j;
    double s = t - c->t_step;
    for (j = 0; j < BGF_NIN; ++j) c->u_eff[j] = c->u[j] + s * (c->du[j] + 0.5 * s * c->d2u[j]);
    return c->u_eff;
}

static int eval_rhs(Inst* c, double t, const double* x, double* xdot) {
    return bg_rhs(t, x, inputs_at(c, t), c->dus, c->p, c->U, xdot, c->work, 0);
}

static int eval_outputs(Inst* c) {
    int st;
    if (c->have_out) return ST_OK;
    st = bg_out(c->t, c->x, inputs_at(c, c->t), c->dus, c->p, c->U, c->y, c->work, 0);
    if (st != 0) {
        logf_(c, ST_ERROR, "logStatusError", "outputs at t = %g: %s (status %d)", c->t, bgf_status_text(st), st);
        return ST_ERROR;
    }
    c->have_out = 1;
    return ST_OK;
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

/* ------------------------------------------------------------------ the core (both versions) */
static void reset_values(Inst* c) {
    memcpy(c->x, bgf_x0, sizeof(double) * BGF_NX);
    memcpy(c->p, bgf_p0, sizeof(double) * BGF_NP);
    memcpy(c->u, bgf_u0, sizeof(double) * BGF_NIN);
    memset(c->du, 0, sizeof c->du);
    memset(c->d2u, 0, sizeof c->d2u);
    c->t = c->t_step = 0.0;
    c->have_out = 0;
    c->rtol = BGF_RTOL;
}

static void core_free(Inst* c) {
    if (!c) return;
#if BGF_CS
    cv_free(c);
#endif
    if (c->work) c->dealloc(c->work);
    if (c->jac) c->dealloc(c->jac);
    if (c->name) c->dealloc(c->name);
    c->dealloc(c);
}

/* a new instance, or NULL (no memory) */
static Inst* core_new(const char* name, int cs, int logging, bgf_alloc_t alloc, bgf_free_t dealloc,
                      void* env, bgf_logger_t logger) {
    Inst* c = (Inst*)alloc(1, sizeof(Inst));
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->alloc = alloc; c->dealloc = dealloc; c->env = env; c->logger = logger;
    c->name = (char*)alloc(strlen(name ? name : "") + 1, 1);
    c->work = (double*)alloc(BGF_N(BGF_WORK) + 1, sizeof(double));
    c->jac = (double*)alloc(BGF_N(BGF_NX * BGF_NX), sizeof(double));
    if (!c->name || !c->work || !c->jac) { core_free(c); return NULL; }
    strcpy(c->name, name ? name : "");
    /* work[0]: the generated code's pointer to native input tables; zero = none */
    memset(c->work, 0, (BGF_N(BGF_WORK) + 1) * sizeof(double));
    c->cs = cs;
    c->logging = logging ? 1 : 0;
    bg_set_lapack((void*)bgf_getrf, (void*)bgf_getrs);
    reset_values(c);
    c->state = BGF_INSTANTIATED;
    return c;
}

static int core_setup(Inst* c, int tol_defined, double tol, double start) {
    c->t = c->t_step = start;
    if (tol_defined && tol > 0 && tol < 1) c->rtol = tol;
    c->have_out = 0;
    return ST_OK;
}

static int core_enter_init(Inst* c) { c->state = BGF_INIT; return ST_OK; }

static int core_exit_init(Inst* c) {
    c->state = BGF_RUNNING;
    c->have_out = 0;
#if BGF_CS
    if (c->cs) {
        cv_free(c);
        if (cv_setup(c) != 0) {
            logf_(c, ST_ERROR, "logStatusError", "CVODE could not be set up (%d states)", BGF_NX);
            c->state = BGF_ERROR;
            return ST_ERROR;
        }
    }
#endif
    return ST_OK;
}

static int core_terminate(Inst* c) { c->state = BGF_TERMINATED; return ST_OK; }

static int core_reset(Inst* c) {
#if BGF_CS
    cv_free(c);
#endif
    reset_values(c);
    c->state = BGF_INSTANTIATED;
    return ST_OK;
}

/* value references: [0, nx) states, [nx, 2nx) derivatives, then inputs, outputs,
   parameters; then time, the event indicators and the input derivatives of order 1 and 2
   (declared by FMI 3 only) */
#define VR_DER BGF_NX
#define VR_IN (2 * BGF_NX)
#define VR_OUT (VR_IN + BGF_NIN)
#define VR_PAR (VR_OUT + BGF_NY)
#define VR_END (VR_PAR + BGF_NP)
#define VR_TIME VR_END
#define VR_EV (VR_TIME + 1)
#define VR_DIN (VR_EV + BGF_NEV)
#define VR_DIN2 (VR_DIN + BGF_NIN)
#define VR_ALL (VR_DIN2 + BGF_NIN)

static int core_get(Inst* c, const unsigned int vr[], size_t n, double v[]) {
    size_t i;
    int need_out = 0, need_der = 0;
    double g[BGF_N(BGF_NEV)];
    for (i = 0; i < n; ++i) {
        if (vr[i] >= VR_OUT && vr[i] < VR_PAR) need_out = 1;
        if (vr[i] >= VR_DER && vr[i] < VR_IN) need_der = 1;
    }
    if (need_out && eval_outputs(c) != ST_OK) return ST_ERROR;
    if (need_der) {
        int st = eval_rhs(c, c->t, c->x, c->xdot);
        if (st != 0) {
            logf_(c, ST_ERROR, "logStatusError", "derivatives at t = %g: %s", c->t, bgf_status_text(st));
            return ST_ERROR;
        }
    }
    indicators(c->x, g);
    for (i = 0; i < n; ++i) {
        unsigned int r = vr[i];
        if (r < VR_DER) v[i] = c->x[r];
        else if (r < VR_IN) v[i] = c->xdot[r - VR_DER];
        else if (r < VR_OUT) v[i] = c->u[r - VR_IN];
        else if (r < VR_PAR) v[i] = c->y[bgf_yidx[r - VR_OUT]];
        else if (r < VR_END) v[i] = c->p[r - VR_PAR];
        else if (r == VR_TIME) v[i] = c->t;
        else if (r < VR_DIN) v[i] = g[r - VR_EV];
        else if (r < VR_DIN2) v[i] = c->du[r - VR_DIN];
        else if (r < VR_ALL) v[i] = c->d2u[r - VR_DIN2];
        else { logf_(c, ST_ERROR, "logStatusError", "get: no variable with value reference %u", r); return ST_ERROR; }
    }
    return ST_OK;
}

static void set_input_derivative(Inst* c, unsigned int j, int order, double v) {
    double* d = order == 1 ? c->du : c->d2u;
#if BGF_CS
    if (d[j] != v) c->restart = 1;
#endif
    d[j] = v;
    c->have_out = 0;
}

static int core_set(Inst* c, const unsigned int vr[], size_t n, const double v[]) {
    size_t i;
    for (i = 0; i < n; ++i) {
        unsigned int r = vr[i];
        if (r < VR_DER) {
            if (c->state != BGF_INSTANTIATED && c->state != BGF_INIT) {
                logf_(c, ST_ERROR, "logStatusError", "set: state %u is set only before initialisation", r);
                return ST_ERROR;
            }
            c->x[r] = v[i];
        } else if (r >= VR_IN && r < VR_OUT) {
#if BGF_CS
            if (c->u[r - VR_IN] != v[i]) c->restart = 1;
#endif
            c->u[r - VR_IN] = v[i];
        } else if (r >= VR_PAR && r < VR_END) {
            if (c->state != BGF_INSTANTIATED && c->state != BGF_INIT) {
                logf_(c, ST_ERROR, "logStatusError", "set: parameter %u is fixed after initialisation", r);
                return ST_ERROR;
            }
            c->p[r - VR_PAR] = v[i];
        } else if (r >= VR_DIN && r < VR_DIN2) {
            set_input_derivative(c, r - VR_DIN, 1, v[i]);
        } else if (r >= VR_DIN2 && r < VR_ALL) {
            set_input_derivative(c, r - VR_DIN2, 2, v[i]);
        } else {
            logf_(c, ST_ERROR, "logStatusError", "set: value reference %u is not an input, state or parameter", r);
            return ST_ERROR;
        }
    }
    c->have_out = 0;
    return ST_OK;
}

#if BGF_FMI == 2
/* input derivatives of order 1 and 2 by the inputs' value references (FMI 2; FMI 3 sets
   them as the variables der(u), der(u,2)) */
static int core_set_input_derivatives(Inst* c, const unsigned int vr[], size_t n, const int order[],
                                      const double v[]) {
    size_t i;
    for (i = 0; i < n; ++i) {
        if (vr[i] < VR_IN || vr[i] >= VR_OUT || order[i] < 1 || order[i] > 2) {
            logf_(c, ST_ERROR, "logStatusError", "input derivatives: value reference %u order %d: "
                  "expected an input and order 1 or 2", vr[i], order[i]);
            return ST_ERROR;
        }
        set_input_derivative(c, vr[i] - VR_IN, order[i], v[i]);
    }
    return ST_OK;
}
#endif

static int core_get_state(Inst* c, void** s) {
    Saved* m = *s ? (Saved*)*s : (Saved*)c->alloc(1, sizeof(Saved));
    if (!m) return ST_ERROR;
    m->t = c->t; memcpy(m->x, c->x, sizeof m->x); memcpy(m->u, c->u, sizeof m->u);
    memcpy(m->du, c->du, sizeof m->du); memcpy(m->d2u, c->d2u, sizeof m->d2u);
    memcpy(m->p, c->p, sizeof m->p); m->state = c->state;
    *s = m;
    return ST_OK;
}

static int core_set_state(Inst* c, const void* s) {
    const Saved* m = (const Saved*)s;
    if (!m) return ST_ERROR;
    c->t = c->t_step = m->t; memcpy(c->x, m->x, sizeof m->x); memcpy(c->u, m->u, sizeof m->u);
    memcpy(c->du, m->du, sizeof m->du); memcpy(c->d2u, m->d2u, sizeof m->d2u);
    memcpy(c->p, m->p, sizeof m->p); c->state = m->state;
    c->have_out = 0;
#if BGF_CS
    c->restart = 1;
#endif
    return ST_OK;
}

static int core_free_state(Inst* c, void** s) {
    if (s && *s) { c->dealloc(*s); *s = NULL; }
    return ST_OK;
}

static int core_serialize(const void* s, unsigned char b[], size_t size) {
    if (!s || size < sizeof(Saved)) return ST_ERROR;
    memcpy(b, s, sizeof(Saved));
    return ST_OK;
}

static int core_deserialize(Inst* c, const unsigned char b[], size_t size, void** s) {
    if (size < sizeof(Saved)) return ST_ERROR;
    if (!*s) *s = c->alloc(1, sizeof(Saved));
    if (!*s) return ST_ERROR;
    memcpy(*s, b, sizeof(Saved));
    return ST_OK;
}

/* derivatives of state derivatives with respect to states, from the generated Jacobian */
static int core_directional(Inst* c, const unsigned int unknown[], size_t nu, const unsigned int known[],
                            size_t nk, const double dk[], double dv[]) {
    size_t i, k;
    int st = bg_jac(c->t, c->x, inputs_at(c, c->t), c->dus, c->p, c->U, c->jac, c->work, 0);
    if (st != 0) return ST_ERROR;
    for (i = 0; i < nu; ++i) {
        double s = 0.0;
        if (unknown[i] < VR_DER || unknown[i] >= VR_IN) {
            logf_(c, ST_ERROR, "logStatusError", "directional derivative: only of state derivatives");
            return ST_ERROR;
        }
        for (k = 0; k < nk; ++k) {
            if (known[k] >= VR_DER) {
                logf_(c, ST_ERROR, "logStatusError", "directional derivative: only with respect to states");
                return ST_ERROR;
            }
            s += c->jac[(unknown[i] - VR_DER) * BGF_NX + known[k]] * dk[k];
        }
        dv[i] = s;
    }
    return ST_OK;
}

static int core_set_time(Inst* c, double t) {
    c->t = c->t_step = t;
    c->have_out = 0;
    return ST_OK;
}

static int core_set_x(Inst* c, const double x[], size_t nx) {
    if (nx != BGF_NX) return ST_ERROR;
    memcpy(c->x, x, nx * sizeof(double));
    c->have_out = 0;
    return ST_OK;
}

static int core_get_xdot(Inst* c, double d[], size_t nx) {
    int st;
    if (nx != BGF_NX) return ST_ERROR;
    st = eval_rhs(c, c->t, c->x, c->xdot);
    if (st != 0) {
        /* discard: the integrator may retry with a smaller step */
        logf_(c, ST_DISCARD, "logStatusDiscard", "derivatives at t = %g: %s (status %d)", c->t, bgf_status_text(st), st);
        return ST_DISCARD;
    }
    memcpy(d, c->xdot, nx * sizeof(double));
    return ST_OK;
}

static int core_get_indicators(Inst* c, double g[], size_t n) {
    if (n != BGF_NEV) return ST_ERROR;
    indicators(c->x, g);
    return ST_OK;
}

static int core_get_x(Inst* c, double x[], size_t nx) {
    if (nx != BGF_NX) return ST_ERROR;
    memcpy(x, c->x, nx * sizeof(double));
    return ST_OK;
}

static int core_get_nominals(double x[], size_t nx) {
    if (nx != BGF_NX) return ST_ERROR;
    memcpy(x, bgf_nominal, nx * sizeof(double));
    return ST_OK;
}

/* one communication step [tc, tc + h] of CVODE */
static int core_do_step(Inst* c, double tc, double h) {
#if BGF_CS
    double tret = tc;
    int flag, j;
    if (c->state != BGF_RUNNING || !c->cv) {
        logf_(c, ST_ERROR, "logStatusError", "do step: the FMU is not initialised for co-simulation");
        return ST_ERROR;
    }
    if (fabs(tc - c->t) > 1e-9 * (1.0 + fabs(tc))) {
        logf_(c, ST_ERROR, "logStatusError", "do step: step from %g, but the FMU is at %g", tc, c->t);
        return ST_ERROR;
    }
    if (h <= 0) return h == 0 ? ST_OK : ST_ERROR;
    /* inputs (and their ramps) are those set at tc: a change restarts the integrator there */
    c->t_step = tc;
    if (c->restart) {
        memcpy(N_VGetArrayPointer(c->yv), c->x, BGF_NX * sizeof(double));
        if (CVodeReInit(c->cv, tc, c->yv) != 0) return ST_ERROR;
        c->restart = 0;
    }
    CVodeSetStopTime(c->cv, tc + h);
    flag = CVode(c->cv, tc + h, c->yv, &tret, BGF_CV_NORMAL);
    while (flag == BGF_CV_ROOT_RETURN && tret < tc + h) {
        /* a stroke end crossed: restart there (as a native run restarts at a located event) */
        if (CVodeReInit(c->cv, tret, c->yv) != 0) return ST_ERROR;
        flag = CVode(c->cv, tc + h, c->yv, &tret, BGF_CV_NORMAL);
    }
    if (flag < 0) {
        logf_(c, ST_ERROR, "logStatusError", "CVODE failed at t = %g (flag %d)", tret, flag);
        c->state = BGF_ERROR;
        return ST_ERROR;
    }
    memcpy(c->x, N_VGetArrayPointer(c->yv), BGF_NX * sizeof(double));
    /* the inputs as they are at the step's end (held, or along their polynomial); the next
       step starts there */
    for (j = 0; j < BGF_NIN; ++j) {
        c->u[j] += h * (c->du[j] + 0.5 * h * c->d2u[j]);
        c->du[j] += h * c->d2u[j];
    }
    c->t = c->t_step = tc + h;
    c->have_out = 0;
    return ST_OK;
#else
    logf_(c, ST_ERROR, "logStatusError", "do step: this FMU was exported for model exchange only");
    (void)tc; (void)h;
    return ST_ERROR;
#endif
}

/* ================================================================== FMI 2.0 entry points */
#if BGF_FMI == 2
static void bgf_emit(Inst* c, int st, const char* cat, const char* msg) {
    c->logger(c->env, c->name, (fmi2Status)st, cat, "%s", msg);
}

#define C_ ((Inst*)comp)
#define S_(x) ((fmi2Status)(x))

const char* fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char* fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean on, size_t n, const fmi2String cats[]) {
    (void)n; (void)cats;
    C_->logging = on ? 1 : 0;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid, fmi2String location,
                              const fmi2CallbackFunctions* cb, fmi2Boolean visible, fmi2Boolean logging) {
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
    return core_new(name, type == fmi2CoSimulation, logging, cb->allocateMemory, cb->freeMemory,
                    cb->componentEnvironment, cb->logger);
}

void fmi2FreeInstance(fmi2Component comp) { core_free(C_); }

fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean tolDefined, fmi2Real tol,
                               fmi2Real start, fmi2Boolean stopDefined, fmi2Real stop) {
    (void)stopDefined; (void)stop;
    return S_(core_setup(C_, tolDefined, tol, start));
}

fmi2Status fmi2EnterInitializationMode(fmi2Component comp) { return S_(core_enter_init(C_)); }
fmi2Status fmi2ExitInitializationMode(fmi2Component comp) { return S_(core_exit_init(C_)); }
fmi2Status fmi2Terminate(fmi2Component comp) { return S_(core_terminate(C_)); }
fmi2Status fmi2Reset(fmi2Component comp) { return S_(core_reset(C_)); }

fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2Real v[]) {
    return S_(core_get(C_, vr, n, v));
}

fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2Real v[]) {
    return S_(core_set(C_, vr, n, v));
}

#define NO_SUCH(name) logf_(C_, ST_ERROR, "logStatusError", name ": this FMU has no such variables"); return fmi2Error
fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2Integer v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2GetInteger"); }
fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2Boolean v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2GetBoolean"); }
fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t n, fmi2String v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2GetString"); }
fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2Integer v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2SetInteger"); }
fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2Boolean v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2SetBoolean"); }
fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t n, const fmi2String v[]) { (void)vr; (void)v; if (!n) return fmi2OK; NO_SUCH("fmi2SetString"); }

fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate* s) { return S_(core_get_state(C_, s)); }
fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate s) { return S_(core_set_state(C_, s)); }
fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate* s) { return S_(core_free_state(C_, s)); }
fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate s, size_t* size) {
    (void)comp; (void)s; *size = sizeof(Saved); return fmi2OK;
}
fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate s, fmi2Byte b[], size_t size) {
    (void)comp; return S_(core_serialize(s, (unsigned char*)b, size));
}
fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte b[], size_t size, fmi2FMUstate* s) {
    return S_(core_deserialize(C_, (const unsigned char*)b, size, s));
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference unknown[], size_t nu,
                                        const fmi2ValueReference known[], size_t nk,
                                        const fmi2Real dk[], fmi2Real dv[]) {
    return S_(core_directional(C_, unknown, nu, known, nk, dk, dv));
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

fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real t) { return S_(core_set_time(C_, t)); }
fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t nx) { return S_(core_set_x(C_, x, nx)); }
fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real d[], size_t nx) { return S_(core_get_xdot(C_, d, nx)); }
fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real g[], size_t ni) { return S_(core_get_indicators(C_, g, ni)); }
fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx) { return S_(core_get_x(C_, x, nx)); }
fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx) {
    (void)comp; return S_(core_get_nominals(x, nx));
}

/* ------------------------------------------------------------------ co-simulation */
fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                                       const fmi2Integer order[], const fmi2Real v[]) {
    return S_(core_set_input_derivatives(C_, vr, n, order, v));
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t n,
                                        const fmi2Integer order[], fmi2Real v[]) {
    (void)vr; (void)order; (void)v;
    if (!n) return fmi2OK;
    logf_(C_, ST_ERROR, "logStatusError", "fmi2GetRealOutputDerivatives: not provided");
    return fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real tc, fmi2Real h, fmi2Boolean noSetPrior) {
    (void)noSetPrior;
    return S_(core_do_step(C_, tc, h));
}

fmi2Status fmi2CancelStep(fmi2Component comp) { (void)comp; return fmi2Error; }
fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Status* v) { (void)comp; (void)k; *v = fmi2OK; return fmi2OK; }
fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Real* v) {
    if (k == fmi2LastSuccessfulTime) { *v = C_->t; return fmi2OK; }
    return fmi2Discard;
}
fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Integer* v) { (void)comp; (void)k; (void)v; return fmi2Discard; }
fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind k, fmi2Boolean* v) { (void)comp; (void)k; (void)v; return fmi2Discard; }
fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind k, fmi2String* v) { (void)comp; (void)k; (void)v; return fmi2Discard; }
#endif

/* ================================================================== FMI 3.0 entry points */
#if BGF_FMI == 3
static void bgf_emit(Inst* c, int st, const char* cat, const char* msg) {
    c->logger(c->env, (fmi3Status)st, cat, msg);
}

#define C_ ((Inst*)instance)
#define S_(x) ((fmi3Status)(x))

static void* bgf_calloc(size_t n, size_t size) { return calloc(n, size); }

static Inst* instantiate3(fmi3String name, fmi3String token, int cs, fmi3Boolean logging,
                          fmi3InstanceEnvironment env, fmi3LogMessageCallback logger) {
    if (!token || strcmp(token, BGF_GUID) != 0) {
        if (logger) {
            char msg[256];
            snprintf(msg, sizeof msg, "instantiate: instantiation token %s does not match this FMU's %s",
                     token ? token : "(null)", BGF_GUID);
            logger(env, fmi3Error, "logStatusError", msg);
        }
        return NULL;
    }
    if (cs && !BGF_CS) {
        if (logger) logger(env, fmi3Error, "logStatusError", "instantiate: this FMU was exported for model exchange only");
        return NULL;
    }
    (void)name;
    return core_new(name, cs, logging, bgf_calloc, free, env, logger);
}

const char* fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean on, size_t n, const fmi3String cats[]) {
    (void)n; (void)cats;
    C_->logging = on ? 1 : 0;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String name, fmi3String token, fmi3String resources,
                                          fmi3Boolean visible, fmi3Boolean logging,
                                          fmi3InstanceEnvironment env, fmi3LogMessageCallback logger) {
    (void)resources; (void)visible;
    return instantiate3(name, token, 0, logging, env, logger);
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String name, fmi3String token, fmi3String resources,
                                         fmi3Boolean visible, fmi3Boolean logging, fmi3Boolean eventModeUsed,
                                         fmi3Boolean earlyReturnAllowed, const fmi3ValueReference required[],
                                         size_t nRequired, fmi3InstanceEnvironment env,
                                         fmi3LogMessageCallback logger, fmi3IntermediateUpdateCallback update) {
    /* no event mode in co-simulation (hasEventMode is false): the stroke ends are handled
       inside the step; no intermediate update, no early return */
    (void)resources; (void)visible; (void)eventModeUsed; (void)earlyReturnAllowed; (void)required;
    (void)nRequired; (void)update;
    return instantiate3(name, token, 1, logging, env, logger);
}

fmi3Instance fmi3InstantiateScheduledExecution(fmi3String name, fmi3String token, fmi3String resources,
                                               fmi3Boolean visible, fmi3Boolean logging,
                                               fmi3InstanceEnvironment env, fmi3LogMessageCallback logger,
                                               fmi3ClockUpdateCallback clockUpdate,
                                               fmi3LockPreemptionCallback lock, fmi3UnlockPreemptionCallback unlock) {
    (void)name; (void)token; (void)resources; (void)visible; (void)logging; (void)clockUpdate; (void)lock; (void)unlock;
    if (logger) logger(env, fmi3Error, "logStatusError", "instantiate: this FMU offers no scheduled execution");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance instance) { core_free(C_); }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean tolDefined, fmi3Float64 tol,
                                       fmi3Float64 start, fmi3Boolean stopDefined, fmi3Float64 stop) {
    (void)stopDefined; (void)stop;
    core_setup(C_, tolDefined, tol, start);
    return S_(core_enter_init(C_));
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) { return S_(core_exit_init(C_)); }
fmi3Status fmi3EnterEventMode(fmi3Instance instance) { (void)instance; return fmi3OK; }
fmi3Status fmi3Terminate(fmi3Instance instance) { return S_(core_terminate(C_)); }
fmi3Status fmi3Reset(fmi3Instance instance) { return S_(core_reset(C_)); }

fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Float64 v[],
                          size_t nv) {
    if (nv != n) { logf_(C_, ST_ERROR, "logStatusError", "fmi3GetFloat64: %zu values for %zu scalars", nv, n); return fmi3Error; }
    return S_(core_get(C_, vr, n, v));
}

fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                          const fmi3Float64 v[], size_t nv) {
    if (nv != n) { logf_(C_, ST_ERROR, "logStatusError", "fmi3SetFloat64: %zu values for %zu scalars", nv, n); return fmi3Error; }
    return S_(core_set(C_, vr, n, v));
}

/* the other variable types: this FMU has none */
#define NONE3(fn, T) \
    fmi3Status fn(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, T v[], size_t nv) { \
        (void)vr; (void)v; (void)nv; if (!n) return fmi3OK; \
        logf_(C_, ST_ERROR, "logStatusError", #fn ": this FMU has no such variables"); return fmi3Error; }
NONE3(fmi3GetFloat32, fmi3Float32)
NONE3(fmi3GetInt8, fmi3Int8)
NONE3(fmi3GetUInt8, fmi3UInt8)
NONE3(fmi3GetInt16, fmi3Int16)
NONE3(fmi3GetUInt16, fmi3UInt16)
NONE3(fmi3GetInt32, fmi3Int32)
NONE3(fmi3GetUInt32, fmi3UInt32)
NONE3(fmi3GetInt64, fmi3Int64)
NONE3(fmi3GetUInt64, fmi3UInt64)
NONE3(fmi3GetBoolean, fmi3Boolean)
NONE3(fmi3GetString, fmi3String)
NONE3(fmi3SetFloat32, const fmi3Float32)
NONE3(fmi3SetInt8, const fmi3Int8)
NONE3(fmi3SetUInt8, const fmi3UInt8)
NONE3(fmi3SetInt16, const fmi3Int16)
NONE3(fmi3SetUInt16, const fmi3UInt16)
NONE3(fmi3SetInt32, const fmi3Int32)
NONE3(fmi3SetUInt32, const fmi3UInt32)
NONE3(fmi3SetInt64, const fmi3Int64)
NONE3(fmi3SetUInt64, const fmi3UInt64)
NONE3(fmi3SetBoolean, const fmi3Boolean)
NONE3(fmi3SetString, const fmi3String)

#define NOT3(what) logf_(C_, ST_ERROR, "logStatusError", what ": not provided by this FMU"); return fmi3Error

fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, size_t sizes[],
                         fmi3Binary v[], size_t nv) {
    (void)vr; (void)sizes; (void)v; (void)nv; if (!n) return fmi3OK; NOT3("fmi3GetBinary");
}
fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const size_t sizes[],
                         const fmi3Binary v[], size_t nv) {
    (void)vr; (void)sizes; (void)v; (void)nv; if (!n) return fmi3OK; NOT3("fmi3SetBinary");
}
fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Clock v[]) {
    (void)vr; (void)v; if (!n) return fmi3OK; NOT3("fmi3GetClock");
}
fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, const fmi3Clock v[]) {
    (void)vr; (void)v; if (!n) return fmi3OK; NOT3("fmi3SetClock");
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference vr, size_t* n) {
    (void)vr; (void)n; NOT3("fmi3GetNumberOfVariableDependencies");
}
fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent, size_t ei[],
                                       fmi3ValueReference independents[], size_t eii[],
                                       fmi3DependencyKind kinds[], size_t n) {
    (void)dependent; (void)ei; (void)independents; (void)eii; (void)kinds; (void)n;
    NOT3("fmi3GetVariableDependencies");
}

fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState* s) { return S_(core_get_state(C_, s)); }
fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState s) { return S_(core_set_state(C_, s)); }
fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState* s) { return S_(core_free_state(C_, s)); }
fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState s, size_t* size) {
    (void)instance; (void)s; *size = sizeof(Saved); return fmi3OK;
}
fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState s, fmi3Byte b[], size_t size) {
    (void)instance; return S_(core_serialize(s, b, size));
}
fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte b[], size_t size, fmi3FMUState* s) {
    return S_(core_deserialize(C_, b, size, s));
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nu,
                                        const fmi3ValueReference knowns[], size_t nk, const fmi3Float64 seed[],
                                        size_t ns, fmi3Float64 sens[], size_t nsens) {
    if (ns != nk || nsens != nu) return fmi3Error;
    return S_(core_directional(C_, unknowns, nu, knowns, nk, seed, sens));
}
fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[], size_t nu,
                                    const fmi3ValueReference knowns[], size_t nk, const fmi3Float64 seed[],
                                    size_t ns, fmi3Float64 sens[], size_t nsens) {
    (void)unknowns; (void)nu; (void)knowns; (void)nk; (void)seed; (void)ns; (void)sens; (void)nsens;
    NOT3("fmi3GetAdjointDerivative");
}

/* no structural parameters, no clocks */
fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) { NOT3("fmi3EnterConfigurationMode"); }
fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) { NOT3("fmi3ExitConfigurationMode"); }
fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                  fmi3Float64 iv[], fmi3IntervalQualifier q[]) {
    (void)vr; (void)n; (void)iv; (void)q; NOT3("fmi3GetIntervalDecimal");
}
fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                   fmi3UInt64 c[], fmi3UInt64 r[], fmi3IntervalQualifier q[]) {
    (void)vr; (void)n; (void)c; (void)r; (void)q; NOT3("fmi3GetIntervalFraction");
}
fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n, fmi3Float64 s[]) {
    (void)vr; (void)n; (void)s; NOT3("fmi3GetShiftDecimal");
}
fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                fmi3UInt64 c[], fmi3UInt64 r[]) {
    (void)vr; (void)n; (void)c; (void)r; NOT3("fmi3GetShiftFraction");
}
fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                  const fmi3Float64 iv[]) {
    (void)vr; (void)n; (void)iv; NOT3("fmi3SetIntervalDecimal");
}
fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                   const fmi3UInt64 c[], const fmi3UInt64 r[]) {
    (void)vr; (void)n; (void)c; (void)r; NOT3("fmi3SetIntervalFraction");
}
fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                               const fmi3Float64 s[]) {
    (void)vr; (void)n; (void)s; NOT3("fmi3SetShiftDecimal");
}
fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                const fmi3UInt64 c[], const fmi3UInt64 r[]) {
    (void)vr; (void)n; (void)c; (void)r; NOT3("fmi3SetShiftFraction");
}
fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clock, fmi3Float64 t) {
    (void)clock; (void)t; NOT3("fmi3ActivateModelPartition");
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean* needUpdate, fmi3Boolean* terminate,
                                    fmi3Boolean* nominalsChanged, fmi3Boolean* valuesChanged,
                                    fmi3Boolean* nextDefined, fmi3Float64* nextTime) {
    (void)instance;
    *needUpdate = fmi3False; *terminate = fmi3False; *nominalsChanged = fmi3False;
    *valuesChanged = fmi3False; *nextDefined = fmi3False; *nextTime = 0.0;
    return fmi3OK;
}

/* ------------------------------------------------------------------ model exchange */
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetPrior, fmi3Boolean* enterEvent,
                                       fmi3Boolean* terminate) {
    (void)instance; (void)noSetPrior;
    *enterEvent = fmi3False;
    *terminate = fmi3False;
    return fmi3OK;
}

fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 t) { return S_(core_set_time(C_, t)); }
fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 x[], size_t nx) { return S_(core_set_x(C_, x, nx)); }
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 d[], size_t nx) { return S_(core_get_xdot(C_, d, nx)); }
fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 g[], size_t n) { return S_(core_get_indicators(C_, g, n)); }
fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 x[], size_t nx) { return S_(core_get_x(C_, x, nx)); }
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 x[], size_t nx) {
    (void)instance; return S_(core_get_nominals(x, nx));
}
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t* n) { (void)instance; *n = BGF_NEV; return fmi3OK; }
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t* n) { (void)instance; *n = BGF_NX; return fmi3OK; }

/* ------------------------------------------------------------------ co-simulation */
fmi3Status fmi3EnterStepMode(fmi3Instance instance) { (void)instance; return fmi3OK; }

fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t n,
                                    const fmi3Int32 orders[], fmi3Float64 v[], size_t nv) {
    (void)vr; (void)orders; (void)v; (void)nv;
    if (!n) return fmi3OK;
    NOT3("fmi3GetOutputDerivatives");
}

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 tc, fmi3Float64 h, fmi3Boolean noSetPrior,
                      fmi3Boolean* eventNeeded, fmi3Boolean* terminate, fmi3Boolean* earlyReturn,
                      fmi3Float64* lastTime) {
    int st;
    (void)noSetPrior;
    st = core_do_step(C_, tc, h);
    *eventNeeded = fmi3False;
    *terminate = fmi3False;
    *earlyReturn = fmi3False;
    *lastTime = C_->t;
    return S_(st);
}
#endif
