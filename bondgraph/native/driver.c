/* CVODE (SUNDIALS 7, BDF, dense or band direct linear solver, analytic Jacobian) driven from C
   on a compiled bond-graph model (bondgraph.codegen: bg_rhs, bg_jac, bg_out, bg_mon by
   pointer), one accepted step at a time, with the rules of bondgraph.stepping.

   No SUNDIALS header ships with the libraries this is linked against at run time (the
   ones inside the scikit-sundae wheel), so the part of the API used here is declared
   below for SUNDIALS 7.x built with sunindextype = int (32 bit) and sunrealtype =
   double. bondgraph.native.sundials checks the version before this is loaded, and
   bgn_abi_check() checks the index width on a live matrix.

   A session (bgn_new) holds the CVODE memory, vectors, dense or band matrix and linear solver,
   its own model work buffers, and the run's bookkeeping (bgn_watch: the counters of
   bondgraph.stepping.Watch, shared with Python by pointer). bgn_begin starts a segment
   [a, b] (CVodeReInit); bgn_run steps it as stepping._loop does:

     R1  a model call with a nonzero status returns NaN to CVODE and is recorded (the
         earliest failing time since the last accepted step); more than fail_limit of
         them, or a failed Jacobian, stops the run (the callback returns -1);
     R2  more than stall_calls calls since the last accepted step, or more than
         stall_steps consecutive steps shorter than tiny_ulps ulps of t: a stall;
     R3  a CVODE error flag;  R4  a non-finite accepted state;
     R9  the wall clock (CLOCK_MONOTONIC, as Python's perf_counter) at every call and
         step;  R10  max_steps accepted steps;
   and, per accepted step, the checks that may need a located root: the blow-up bound
   (R5), the divisor monitor against its values at the segment's start (R6: a sign
   change, an exact zero, a coupled block's measure below block_eps, or a value below
   its ill-conditioning level) and the guards (R7: a sign change in their direction, or
   one-sided slopes on the interpolant showing an extremum inside the step). A step where
   any of these may hold returns BGN_LOOK before its outputs are written: Python
   (bondgraph.stepping) finishes that step with the same code as its own loop (roots by
   Brent on CVodeGetDky through bgn_dky, or, for a guard linear in the state, on the
   step's polynomial from bgn_taylor; the order of R8, warnings, messages) and either
   ends the segment or calls bgn_run(resume = 1) to go on. Every other step is finished
   here: its output rows (requested times interpolated, or the step itself) are
   appended to the session's row buffer, which Python drains after each return. */
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

typedef double sunrealtype;
typedef int sunindextype;
typedef int SUNErrCode;
typedef int SUNComm;
typedef struct _SUNContext* SUNContext;
typedef struct _generic_N_Vector* N_Vector;
typedef struct _generic_SUNMatrix* SUNMatrix;
typedef struct _generic_SUNLinearSolver* SUNLinearSolver;
typedef int (*CVRhsFn)(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data);
typedef int (*CVLsJacFn)(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void* user_data,
                         N_Vector tmp1, N_Vector tmp2, N_Vector tmp3);
typedef void (*SUNErrHandlerFn)(int line, const char* func, const char* file, const char* msg,
                                SUNErrCode err_code, void* err_user_data, SUNContext sunctx);

SUNErrCode SUNContext_Create(SUNComm comm, SUNContext* sunctx_out);
SUNErrCode SUNContext_Free(SUNContext* sunctx);
SUNErrCode SUNContext_ClearErrHandlers(SUNContext sunctx);
SUNErrCode SUNContext_PushErrHandler(SUNContext sunctx, SUNErrHandlerFn fn, void* data);
N_Vector N_VNew_Serial(sunindextype length, SUNContext sunctx);
void N_VDestroy(N_Vector v);
sunrealtype* N_VGetArrayPointer(N_Vector v);
SUNMatrix SUNDenseMatrix(sunindextype M, sunindextype N, SUNContext sunctx);
sunrealtype* SUNDenseMatrix_Data(SUNMatrix A);
void SUNMatDestroy(SUNMatrix A);
SUNLinearSolver SUNLinSol_Dense(N_Vector y, SUNMatrix A, SUNContext sunctx);
SUNMatrix SUNBandMatrix(sunindextype N, sunindextype mu, sunindextype ml, SUNContext sunctx);
sunrealtype* SUNBandMatrix_Column(SUNMatrix A, sunindextype j);
SUNLinearSolver SUNLinSol_Band(N_Vector y, SUNMatrix A, SUNContext sunctx);
SUNErrCode SUNMatZero(SUNMatrix A);
SUNErrCode SUNLinSolFree(SUNLinearSolver S);
void* CVodeCreate(int lmm, SUNContext sunctx);
int CVodeInit(void* mem, CVRhsFn f, sunrealtype t0, N_Vector y0);
int CVodeReInit(void* mem, sunrealtype t0, N_Vector y0);
int CVodeSStolerances(void* mem, sunrealtype reltol, sunrealtype abstol);
int CVodeSVtolerances(void* mem, sunrealtype reltol, N_Vector abstol);
int CVodeSetUserData(void* mem, void* user_data);
int CVodeSetLinearSolver(void* mem, SUNLinearSolver LS, SUNMatrix A);
int CVodeSetJacFn(void* mem, CVLsJacFn jac);
int CVodeSetMaxNumSteps(void* mem, long int mxsteps);
int CVodeSetMaxStep(void* mem, sunrealtype hmax);
int CVodeSetMinStep(void* mem, sunrealtype hmin);
int CVodeSetInitStep(void* mem, sunrealtype hin);
int CVodeSetMaxOrd(void* mem, int maxord);
int CVodeSetMaxNonlinIters(void* mem, int maxcor);
int CVodeSetMaxConvFails(void* mem, int maxncf);
int CVodeSetStopTime(void* mem, sunrealtype tstop);
int CVodeClearStopTime(void* mem);
int CVode(void* mem, sunrealtype tout, N_Vector yout, sunrealtype* tret, int itask);
int CVodeGetDky(void* mem, sunrealtype t, int k, N_Vector dky);
int CVodeGetLastOrder(void* mem, int* qlast);
int CVodeGetLastStep(void* mem, sunrealtype* hlast);
int CVodeGetCurrentTime(void* mem, sunrealtype* tcur);
void CVodeFree(void** mem);

#define CV_BDF 2
#define CV_ONE_STEP 2

/* a generated model function (bondgraph.codegen) */
typedef int (*bg_fn)(double t, const double* xs, const double* us, const double* dus,
                     const double* ps, double* Us, double* out, double* work, int mode);

/* bgn_run results */
#define BGN_END 0        /* the segment reached b */
#define BGN_LOOK 1       /* a step Python must finish (a root to locate, a warning to give) */
#define BGN_YIELD 2      /* time to update the progress bar: call again (resume = 0) */
#define BGN_FAILS 3      /* R1: too many failed calls, or a failed Jacobian */
#define BGN_CALLS 4      /* R2: too many calls without an accepted step */
#define BGN_TINY 5       /* R2: too many tiny steps */
#define BGN_SOLVER 6     /* R3: a CVODE error flag (bgn_flag) */
#define BGN_NONFINITE 7  /* R4 */
#define BGN_STEPS 8      /* R10 */
#define BGN_TIMEOUT 9    /* R9 */
#define BGN_INIT 10      /* CVodeReInit or an option refused (bgn_flag) */

/* guard kinds: the quantity a guard reads */
#define G_STATE 0
#define G_OUTPUT 1
#define G_INPUT 2
#define G_CONST 3
#define G_NONE -1   /* no second quantity */

/* The counters of stepping.Watch, shared with Python (ctypes.Structure _Watch). */
typedef struct {
    long nfev, njev, steps, calls, fails, tiny, max_steps;
    long fail_limit, stall_calls, stall_steps;
    double tiny_ulps, block_eps, deadline;
    int ff_has, ff_status, ff_jac, abort;
    double ff_t, t_good;
    double t_old, t;       /* the step bgn_run returned at */
    double h;              /* its length (BGN_STEPS) */
} bgn_watch;

typedef struct {
    SUNContext ctx;
    void* mem;
    N_Vector y, dky, atolv;
    SUNMatrix A;
    SUNLinearSolver LS;
    int n;            /* solver states: nx, plus 3 energy integrals when mode & 1 */
    int mu, ml;       /* half-bandwidths of a band solver; ml < 0: dense */
    int nx, nu, ndu, nU, nout, nwork, nmon;
    bg_fn rhs, jac, out, mon;
    bg_fn monw;                     /* bg_monw: the divisors from the work array (or NULL) */
    int rhs_w;                      /* the work array holds the factors of a successful
                                       bg_rhs call (mode & 2) of the current CVode step */
    const double* ps;               /* parameters (the caller's vector: mode switches show) */
    double *us, *dus, *Us, *W, *J, *outs;
    int mode, initialised;
    bgn_watch* w;                   /* the caller's */
    double *ff_y, *y_good;          /* first failure's state, last good state (n each) */
    double* bound;                  /* blow-up bound per state, or NULL (caller's) */
    /* monitor (R6): on, levels and coupled flags (caller's arrays), values */
    int mon_on; const double* low; const int* coupled;
    double *m_old, *m_new;
    /* guards (R7): g = sign * (q - q2 - thr) - tol, direction dir (q2: a second quantity
       of kind gkind2, or 0 when G_NONE) */
    int ng, gcap; int *gkind, *gidx, *gdir, *gkind2, *gidx2; double *gsign, *gthr, *gtol, *gconst, *gconst2;
    double *g_old, *g_new, *dg_old, *dg_new, *gtmp; int dg_valid;
    /* the last step's Taylor coefficients (bgn_taylor), read at most once per step */
    double* tay; double tay_info[3]; long tay_step; int tay_ok;
    /* the segment */
    double b, t_prev;
    const double* te; int nte, ie;  /* requested output times (caller's), next index */
    /* output rows */
    double *rt, *ry; int nrows, rcap;
    /* progress: return BGN_YIELD every yield_every seconds (0: never) */
    double yield_every, next_yield;
    int flag; char msg[512];
} bgn_session;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the ulp of |x| (numpy.spacing) */
static double spacing(double x) {
    x = fabs(x);
    return nextafter(x, INFINITY) - x;
}

static void bgn_errh(int line, const char* func, const char* file, const char* msg,
                     SUNErrCode code, void* data, SUNContext ctx) {
    bgn_session* s = (bgn_session*)data;
    (void)line; (void)file; (void)ctx;
    snprintf(s->msg, sizeof(s->msg), "%s: %s (code %d)", func ? func : "?", msg ? msg : "", code);
}

/* R1: a failed model call (Watch.failed); returns 1 if the run must stop */
static int failed(bgn_session* s, double t, const double* y, int status, int jac) {
    bgn_watch* w = s->w;
    w->fails++;
    if (!w->ff_has || t < w->ff_t) {
        w->ff_has = 1; w->ff_t = t; w->ff_status = status; w->ff_jac = jac;
        memcpy(s->ff_y, y, sizeof(double) * s->n);
    }
    if (jac || w->fails > w->fail_limit) { w->abort = BGN_FAILS; return 1; }
    return 0;
}

static int drv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* ud) {
    bgn_session* s = (bgn_session*)ud;
    bgn_watch* w = s->w;
    double* yv = N_VGetArrayPointer(y);
    double* yd = N_VGetArrayPointer(ydot);
    int i, st;
    /* Watch.call: counted before anything else */
    w->nfev++;
    w->calls++;
    if (w->calls > w->stall_calls) { w->abort = BGN_CALLS; return -1; }
    if (now() > w->deadline) { w->abort = BGN_TIMEOUT; return -1; }
    st = s->rhs(t, yv, s->us, s->dus, s->ps, s->Us, yd, s->W, s->mode | (s->monw ? 2 : 0));
    s->rhs_w = st == 0;
    if (st != 0) {
        for (i = 0; i < s->n; ++i) yd[i] = NAN;
        if (failed(s, t, yv, st, 0)) return -1;
    }
    return 0;
}

static int drv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix Jm, void* ud,
                   N_Vector t1, N_Vector t2, N_Vector t3) {
    bgn_session* s = (bgn_session*)ud;
    double* yv = N_VGetArrayPointer(y);
    double* A;
    int n = s->n, nx = s->nx, r, c, st;
    (void)fy; (void)t1; (void)t2; (void)t3;
    s->w->njev++;
    s->rhs_w = 0;
    st = s->jac(t, yv, s->us, s->dus, s->ps, s->Us, s->J, s->W, 0);
    if (st != 0) {
        failed(s, t, yv, st, 1);
        return -1;
    }
    if (s->ml >= 0) {   /* band: column c holds rows c - mu ... c + ml (energy rows zero) */
        SUNMatZero(Jm);
        for (c = 0; c < nx; ++c) {
            double* col = SUNBandMatrix_Column(Jm, c);
            int r0 = c - s->mu < 0 ? 0 : c - s->mu, r1 = c + s->ml >= nx ? nx - 1 : c + s->ml;
            for (r = r0; r <= r1; ++r) col[r - c] = s->J[r * nx + c];
        }
        return 0;
    }
    A = SUNDenseMatrix_Data(Jm);
    /* J is row-major nx x nx; the dense matrix is column-major n x n (energy rows zero) */
    for (c = 0; c < n; ++c)
        for (r = 0; r < n; ++r)
            A[c * n + r] = (r < nx && c < nx) ? s->J[r * nx + c] : 0.0;
    return 0;
}

/* Does the library use a 32-bit sunindextype? The dense matrix content starts with
   M and N: as ints, N sits at byte 4; as 64-bit integers, byte 4 holds M's high half. */
int bgn_abi_check(void) {
    SUNContext ctx = 0;
    SUNMatrix A;
    int ok;
    if (SUNContext_Create(0, &ctx) != 0) return -1;
    A = SUNDenseMatrix(3, 4, ctx);
    if (!A) { SUNContext_Free(&ctx); return -2; }
    {
        const int* content = *(const int**)A;
        ok = content[0] == 3 && content[1] == 4;
    }
    SUNMatDestroy(A);
    SUNContext_Free(&ctx);
    return ok ? 0 : 1;
}

static void free_guards(bgn_session* s) {
    free(s->gkind); free(s->gidx); free(s->gdir); free(s->gsign); free(s->gthr);
    free(s->gtol); free(s->gconst); free(s->g_old); free(s->g_new); free(s->dg_old);
    free(s->dg_new); free(s->gtmp); free(s->gkind2); free(s->gidx2); free(s->gconst2);
    s->gkind = s->gidx = s->gdir = s->gkind2 = s->gidx2 = 0;
    s->gsign = s->gthr = s->gtol = s->gconst = s->g_old = s->g_new = s->dg_old = s->dg_new = s->gtmp = 0;
    s->gconst2 = 0;
    s->gcap = s->ng = 0;
}

void bgn_free(bgn_session* s) {
    if (!s) return;
    if (s->mem) CVodeFree(&s->mem);
    if (s->LS) SUNLinSolFree(s->LS);
    if (s->A) SUNMatDestroy(s->A);
    if (s->y) N_VDestroy(s->y);
    if (s->dky) N_VDestroy(s->dky);
    if (s->atolv) N_VDestroy(s->atolv);
    if (s->ctx) SUNContext_Free(&s->ctx);
    free(s->us); free(s->dus); free(s->Us); free(s->W); free(s->J); free(s->outs);
    free(s->ff_y); free(s->y_good); free(s->m_old); free(s->m_new);
    free(s->rt); free(s->ry); free(s->tay);
    free_guards(s);
    free(s);
}

/* fns: rhs, jac, out, mon (or NULL); sizes: bg_sizes of the model (nx, nU, nu, ndu, np,
   nout, nwork); nmon: bg_nmon(); energy: 3 extra states; w: the caller's counters;
   mu, ml: half-bandwidths of the Jacobian for a band solver (ml < 0: dense) */
bgn_session* bgn_new(void* rhs, void* jac, void* out, void* mon, int nmon, const int* sizes,
                     int energy, bgn_watch* w, int mu, int ml) {
    bgn_session* s = (bgn_session*)calloc(1, sizeof(bgn_session));
    if (!s) return 0;
    s->rhs = (bg_fn)rhs; s->jac = (bg_fn)jac; s->out = (bg_fn)out; s->mon = (bg_fn)mon;
    s->nmon = mon ? nmon : 0;
    s->nx = sizes[0]; s->nU = sizes[1]; s->nu = sizes[2]; s->ndu = sizes[3];
    s->nout = sizes[5]; s->nwork = sizes[6];
    s->mode = energy ? 1 : 0;
    s->n = s->nx + (energy ? 3 : 0);
    s->w = w;
    s->us = (double*)calloc(s->nu + 1, sizeof(double));
    s->dus = (double*)calloc(s->ndu + 1, sizeof(double));
    s->Us = (double*)calloc(s->nU + 1, sizeof(double));
    s->W = (double*)calloc(s->nwork + 1, sizeof(double));
    s->J = (double*)calloc((size_t)s->nx * s->nx + 1, sizeof(double));
    s->outs = (double*)calloc(s->nout + 1, sizeof(double));
    s->ff_y = (double*)calloc(s->n + 1, sizeof(double));
    s->y_good = (double*)calloc(s->n + 1, sizeof(double));
    s->m_old = (double*)calloc(s->nmon + 1, sizeof(double));
    s->m_new = (double*)calloc(s->nmon + 1, sizeof(double));
    s->tay = (double*)calloc(6 * (size_t)s->n + 1, sizeof(double));
    s->tay_step = -1;
    if (!s->us || !s->dus || !s->Us || !s->W || !s->J || !s->outs || !s->ff_y || !s->y_good
        || !s->m_old || !s->m_new || !s->tay) { bgn_free(s); return 0; }
    if (SUNContext_Create(0, &s->ctx) != 0) { bgn_free(s); return 0; }
    SUNContext_ClearErrHandlers(s->ctx);
    SUNContext_PushErrHandler(s->ctx, bgn_errh, s);
    s->y = N_VNew_Serial(s->n, s->ctx);
    s->dky = N_VNew_Serial(s->n, s->ctx);
    s->atolv = N_VNew_Serial(s->n, s->ctx);
    s->mu = mu; s->ml = ml;
    s->A = ml >= 0 ? SUNBandMatrix(s->n, mu, ml, s->ctx) : SUNDenseMatrix(s->n, s->n, s->ctx);
    if (!s->y || !s->dky || !s->atolv || !s->A) { bgn_free(s); return 0; }
    s->LS = ml >= 0 ? SUNLinSol_Band(s->y, s->A, s->ctx) : SUNLinSol_Dense(s->y, s->A, s->ctx);
    s->mem = CVodeCreate(CV_BDF, s->ctx);
    if (!s->LS || !s->mem) { bgn_free(s); return 0; }
    return s;
}

/* the cheap monitor (bg_monw of the model, or NULL for none) */
void bgn_set_monw(bgn_session* s, void* monw) { s->monw = (bg_fn)monw; }

/* the model's input buffers (constant inputs are written here; tables overwrite them) */
double* bgn_us(bgn_session* s) { return s->us; }
double* bgn_dus(bgn_session* s) { return s->dus; }
double* bgn_ff_y(bgn_session* s) { return s->ff_y; }
double* bgn_y_good(bgn_session* s) { return s->y_good; }
double* bgn_m_old(bgn_session* s) { return s->m_old; }
double* bgn_g_old(bgn_session* s) { return s->g_old; }
double* bgn_dg_old(bgn_session* s) { return s->dg_old; }
int bgn_dg_valid(bgn_session* s) { return s->dg_valid; }
void bgn_set_dg_valid(bgn_session* s, int v) { s->dg_valid = v; }
double* bgn_y(bgn_session* s) { return N_VGetArrayPointer(s->y); }
void bgn_set_params(bgn_session* s, const double* ps) { s->ps = ps; }
/* the model's input tables (bg_inputs_t* of the generated code, or NULL): the first slot
   of the work array the model functions are given */
void bgn_set_input_tables(bgn_session* s, void* tables) { memcpy(s->W, &tables, sizeof tables); }
/* blow-up bound (nx values, or NULL: none); monitor on/off, levels and coupled flags */
void bgn_set_checks(bgn_session* s, const double* bound, int mon_on, const double* low,
                    const int* coupled) {
    s->bound = (double*)bound;
    s->mon_on = mon_on && s->nmon > 0;
    s->low = low; s->coupled = coupled;
}
void bgn_set_yield(bgn_session* s, double every) {
    s->yield_every = every;
    s->next_yield = every > 0 ? now() + every : INFINITY;
}

/* guards: kind (G_*), index, sign, threshold, tolerance, constant value, direction, and
   the second quantity subtracted from the first: kind (G_NONE: none), index, constant */
int bgn_set_guards(bgn_session* s, int ng, const int* kind, const int* idx, const double* sign,
                   const double* thr, const double* tol, const double* cval, const int* dir,
                   const int* kind2, const int* idx2, const double* cval2) {
    int i;
    if (ng > s->gcap) {
        free_guards(s);
        s->gcap = ng;
#define ALLOC(p, T) p = (T*)calloc(ng + 1, sizeof(T)); if (!p) return -20;
        ALLOC(s->gkind, int) ALLOC(s->gidx, int) ALLOC(s->gdir, int)
        ALLOC(s->gsign, double) ALLOC(s->gthr, double) ALLOC(s->gtol, double)
        ALLOC(s->gconst, double) ALLOC(s->g_old, double) ALLOC(s->g_new, double)
        ALLOC(s->dg_old, double) ALLOC(s->dg_new, double) ALLOC(s->gtmp, double)
        ALLOC(s->gkind2, int) ALLOC(s->gidx2, int) ALLOC(s->gconst2, double)
#undef ALLOC
    }
    s->ng = ng;
    for (i = 0; i < ng; ++i) {
        s->gkind[i] = kind[i]; s->gidx[i] = idx[i]; s->gsign[i] = sign[i];
        s->gthr[i] = thr[i]; s->gtol[i] = tol[i]; s->gconst[i] = cval[i]; s->gdir[i] = dir[i];
        s->gkind2[i] = kind2[i]; s->gidx2[i] = idx2[i]; s->gconst2[i] = cval2[i];
    }
    return 0;
}

/* the state interpolated at tq within the last step (the step's end itself exactly) */
static const double* interp(bgn_session* s, double tq) {
    if (tq == s->w->t) return N_VGetArrayPointer(s->y);
    if (CVodeGetDky(s->mem, tq, 0, s->dky) < 0) return 0;
    return N_VGetArrayPointer(s->dky);
}

int bgn_dky(bgn_session* s, double tq, double* out) {
    const double* v = interp(s, tq);
    if (!v) return -1;
    memcpy(out, v, sizeof(double) * s->n);
    return 0;
}

/* The last step's interpolant (what interp evaluates) as a polynomial: its degree is the
   order q of that step and it is valid on [tn - hu, tn] (tn: CVODE's current time, hu: the
   step). out[k*n + i] = the k-th derivative of state i at tn, k = 0..q (out holds 6*n:
   q <= 5), so that y_i(t) = sum_k out[k*n + i] (t - tn)^k / k!; info = {tn, hu, q}.
   Returns 0 or a CVODE error flag. */
int bgn_taylor(bgn_session* s, double* out, double* info) {
    int q, k, flag;
    double tn, hu;
    if ((flag = CVodeGetLastOrder(s->mem, &q)) < 0) return flag;
    if ((flag = CVodeGetLastStep(s->mem, &hu)) < 0) return flag;
    if ((flag = CVodeGetCurrentTime(s->mem, &tn)) < 0) return flag;
    if (q < 1 || q > 5 || !(hu > 0)) return -100;
    for (k = 0; k <= q; ++k) {
        if ((flag = CVodeGetDky(s->mem, tn, k, s->dky)) < 0) return flag;
        memcpy(out + (size_t)k * s->n, N_VGetArrayPointer(s->dky), sizeof(double) * s->n);
    }
    info[0] = tn; info[1] = hu; info[2] = (double)q;
    return 0;
}

/* one quantity a guard reads; the outputs are computed once per evaluation (*have_out) */
static int guard_quantity(bgn_session* s, double t, const double* y, int kind, int idx,
                          double cval, int* have_out, double* q) {
    int st;
    switch (kind) {
    case G_NONE: *q = 0.0; return 0;
    case G_STATE: *q = y[idx]; return 0;
    case G_CONST: *q = cval; return 0;
    default:
        if (!*have_out) {
            st = s->out(t, y, s->us, s->dus, s->ps, s->Us, s->outs, s->W, 0);
            if (st != 0) return st;
            *have_out = 1;
        }
        *q = kind == G_OUTPUT ? s->outs[idx] : s->us[idx];
        return 0;
    }
}

/* the guards' values at (t, y); a failed output call returns its status */
int bgn_guards(bgn_session* s, double t, const double* y, double* g) {
    int i, have_out = 0, st;
    for (i = 0; i < s->ng; ++i) {
        double q, q2;
        st = guard_quantity(s, t, y, s->gkind[i], s->gidx[i], s->gconst[i], &have_out, &q);
        if (st != 0) return st;
        st = guard_quantity(s, t, y, s->gkind2[i], s->gidx2[i], s->gconst2[i], &have_out, &q2);
        if (st != 0) return st;
        g[i] = s->gsign[i] * (q - q2 - s->gthr[i]) - s->gtol[i];
    }
    return 0;
}

/* the divisors' values at (t, y) (bg_mon: NaN past a failing block); its status */
int bgn_monitor(bgn_session* s, double t, const double* y, double* m) {
    if (!s->nmon) return 0;
    s->rhs_w = 0;
    return s->mon(t, y, s->us, s->dus, s->ps, s->Us, m, s->W, 0);
}

static int add_row(bgn_session* s, double t, const double* y) {
    if (s->nrows >= s->rcap) {
        int cap = s->rcap ? 2 * s->rcap : 256;
        double* rt = (double*)realloc(s->rt, sizeof(double) * cap);
        double* ry;
        if (!rt) return -1;
        s->rt = rt;
        ry = (double*)realloc(s->ry, sizeof(double) * (size_t)cap * s->n);
        if (!ry) return -1;
        s->ry = ry;
        s->rcap = cap;
    }
    s->rt[s->nrows] = t;
    memcpy(s->ry + (size_t)s->nrows * s->n, y, sizeof(double) * s->n);
    s->nrows++;
    return 0;
}

/* the rows written since the last drain: count, times, states (row-major n columns) */
int bgn_rows(bgn_session* s, double** t, double** y) { *t = s->rt; *y = s->ry; return s->nrows; }
void bgn_drain(bgn_session* s) { s->nrows = 0; }
int bgn_ie(bgn_session* s) { return s->ie; }
void bgn_set_ie(bgn_session* s, int ie) { s->ie = ie; }

/* Start a segment [a, b] at y0 (CVodeInit the first time, then CVodeReInit: a fresh
   start, as the Python path's new CVODE object per segment), with the solver options;
   atol has n entries (vector tolerance) or one. te: requested output times (the caller's
   array, or NULL: every step), ie the first not yet written. The caller writes the
   monitor's and the guards' values at the start into m_old and g_old. Returns 0, or
   BGN_INIT (bgn_flag). */
int bgn_begin(bgn_session* s, double a, double b, const double* y0, double rtol, const double* atol,
              int natol, double first_step, double max_step, int use_jac, const double* te,
              int nte, int ie) {
    int flag, i;
    double* yv = N_VGetArrayPointer(s->y);
    memcpy(yv, y0, sizeof(double) * s->n);
    s->msg[0] = 0;
    s->flag = 0;
    s->b = b; s->t_prev = a;
    s->w->t = a; s->w->t_old = a; s->w->t_good = a; s->w->abort = 0;
    memcpy(s->y_good, y0, sizeof(double) * s->n);
    s->te = te; s->nte = te ? nte : 0; s->ie = ie;
    s->nrows = 0;
    s->dg_valid = 0;
    s->tay_step = -1;
    if (!s->initialised) {
        flag = CVodeInit(s->mem, drv_rhs, a, s->y);
        if (flag < 0) { s->flag = flag; return BGN_INIT; }
        CVodeSetUserData(s->mem, s);
        flag = CVodeSetLinearSolver(s->mem, s->LS, s->A);
        if (flag < 0) { s->flag = flag; return BGN_INIT; }
        s->initialised = 1;
    } else {
        flag = CVodeReInit(s->mem, a, s->y);
        if (flag < 0) { s->flag = flag; return BGN_INIT; }
    }
    if (natol == s->n) {
        double* av = N_VGetArrayPointer(s->atolv);
        for (i = 0; i < s->n; ++i) av[i] = atol[i];
        flag = CVodeSVtolerances(s->mem, rtol, s->atolv);
    } else {
        flag = CVodeSStolerances(s->mem, rtol, atol[0]);
    }
    if (flag < 0) { s->flag = flag; return BGN_INIT; }
    flag = CVodeSetJacFn(s->mem, use_jac ? drv_jac : 0);
    if (flag < 0) { s->flag = flag; return BGN_INIT; }
    /* scikit-sundae's options, as the Python path sets them */
    CVodeSetMaxNonlinIters(s->mem, 3);
    CVodeSetMaxConvFails(s->mem, 10);
    CVodeSetInitStep(s->mem, first_step);
    CVodeSetMinStep(s->mem, 0.0);
    CVodeSetMaxStep(s->mem, max_step);
    CVodeSetMaxOrd(s->mem, 5);
    CVodeSetMaxNumSteps(s->mem, 100000);
    return 0;
}

/* Watch.accept: a stall (R2), too many steps (R10) or the wall clock (R9) */
static int accept(bgn_session* s, double t_old, double t) {
    bgn_watch* w = s->w;
    double h = t - t_old, m = fabs(t);
    w->steps++;
    w->calls = 0;
    w->fails = 0;
    w->ff_has = 0;
    if (fabs(t_old) > m) m = fabs(t_old);
    if (m < 1e-300) m = 1e-300;
    if (h <= w->tiny_ulps * DBL_EPSILON * m) {
        w->tiny++;
        if (w->tiny > w->stall_steps) return BGN_TINY;
    } else {
        w->tiny = 0;
    }
    w->h = h;
    if (w->steps > w->max_steps) return BGN_STEPS;
    if (now() > w->deadline) return BGN_TIMEOUT;
    return 0;
}

/* Does guard i keep its sign on the whole step, by a bound on its polynomial? For a guard
   linear in the state (states and constants), on CVODE's last step [tn - hu, tn] that
   contains [t_old, t], g(tn + u) = sum_k c_k u^k / k! lies within
   c_0 -/+ sum_{k>=1} |c_k| hu^k / k!: below zero everywhere (sign +1) or above (-1) means
   the extremum stepping._crossings would compute on that same polynomial
   (bondgraph.native.steppoly) cannot reach zero. 1: proven; 0: not (Python looks). */
static int keeps_sign(bgn_session* s, int i, int sign) {
    int k, q, n = s->n, k1 = s->gkind[i], k2 = s->gkind2[i];
    double hu, c0, spread = 0.0, hk = 1.0;
    if (!(k1 == G_STATE || k1 == G_CONST) || !(k2 == G_STATE || k2 == G_CONST || k2 == G_NONE))
        return 0;
    if (s->tay_step != s->w->steps) {
        s->tay_step = s->w->steps;
        s->tay_ok = bgn_taylor(s, s->tay, s->tay_info) == 0;
        if (s->tay_ok) {
            double fuzz = 100 * DBL_EPSILON * (fabs(s->tay_info[0]) + s->tay_info[1]);
            s->tay_ok = s->w->t_old >= s->tay_info[0] - s->tay_info[1] - fuzz
                        && s->w->t <= s->tay_info[0] + fuzz;
        }
    }
    if (!s->tay_ok) return 0;
    hu = s->tay_info[1]; q = (int)s->tay_info[2];
    c0 = (k1 == G_STATE ? s->tay[s->gidx[i]] : s->gconst[i])
         - (k2 == G_STATE ? s->tay[s->gidx2[i]] : (k2 == G_CONST ? s->gconst2[i] : 0.0));
    c0 = s->gsign[i] * (c0 - s->gthr[i]) - s->gtol[i];
    for (k = 1; k <= q; ++k) {
        double ck = (k1 == G_STATE ? s->tay[(size_t)k * n + s->gidx[i]] : 0.0)
                    - (k2 == G_STATE ? s->tay[(size_t)k * n + s->gidx2[i]] : 0.0);
        hk *= hu / k;
        spread += fabs(ck) * hk;
    }
    spread += 1e-12 * (fabs(c0) + spread);
    if (!isfinite(c0) || !isfinite(spread)) return 0;
    return sign > 0 ? c0 + spread < 0 : c0 - spread > 0;
}

/* could stepping._crossings find a crossing of guard i in this step? */
static int may_cross(bgn_session* s, int i) {
    double ga = s->g_old[i], gb = s->g_new[i], dga = s->dg_old[i], dgb = s->dg_new[i];
    int d = s->gdir[i];
    int both0 = ga == 0 && gb == 0;
    int up = ga <= 0 && 0 <= gb && !both0, down = ga >= 0 && 0 >= gb && !both0;
    if (up || down) return (up && d >= 0) || (down && d <= 0);
    /* an extremum inside: Python finds it (and the crossings beside it) unless the
       guard's polynomial cannot reach zero on the step */
    if (ga < 0 && gb < 0 && dga > 0 && 0 > dgb) return !keeps_sign(s, i, +1);
    if (ga > 0 && gb > 0 && dga < 0 && 0 < dgb) return !keeps_sign(s, i, -1);
    return 0;
}

/* the bookkeeping at the end of a finished step (stepping._loop's last lines) */
static int commit(bgn_session* s) {
    bgn_watch* w = s->w;
    if (s->mon_on) memcpy(s->m_old, s->m_new, sizeof(double) * s->nmon);
    if (s->ng) {
        memcpy(s->g_old, s->g_new, sizeof(double) * s->ng);
        memcpy(s->dg_old, s->dg_new, sizeof(double) * s->ng);
    }
    w->t_good = w->t;
    memcpy(s->y_good, N_VGetArrayPointer(s->y), sizeof(double) * s->n);
    if (w->t >= s->b) return BGN_END;
    return -1;
}

/* R6's reading without the primal: the moduli at (t, y), the blocks' measures from the
   factors of the step's last right-hand side (its last Newton iterate, within the
   nonlinear solver's tolerance of y). Taken only when every value keeps its sign and
   stays clear of every threshold by a wide margin (twice the ill-conditioning level and
   block_eps, a millionth of its value at the last step): a reading that close to a
   threshold could differ from the one at y, so then the full monitor is evaluated at
   (t, y) as before. 1: m_new holds the reading, no check can fire. */
static int cheap_monitor(bgn_session* s, double t, const double* y) {
    int i;
    if (!s->monw || !s->rhs_w) return 0;
    if (s->monw(t, y, s->us, s->dus, s->ps, s->Us, s->m_new, s->W, 0) != 0) return 0;
    for (i = 0; i < s->nmon; ++i) {
        double mo = s->m_old[i], mn = s->m_new[i], a = fabs(mn);
        if (!isfinite(mn) || !(mo * mn > 0)) return 0;
        if (a < 2 * s->low[i] || a < 1e-6 * fabs(mo)) return 0;
        if (s->coupled[i] && a < 2 * s->w->block_eps) return 0;
    }
    return 1;
}

/* Step the segment. resume = 1 after Python finished a BGN_LOOK step without ending the
   segment: it has written that step's rows and, into m_old/g_old/dg_old, the values
   the next step compares with. */
int bgn_run(bgn_session* s, int resume) {
    bgn_watch* w = s->w;
    double* yv = N_VGetArrayPointer(s->y);
    int i, code, n = s->n, nx = s->nx;
    if (resume) {
        w->t_good = w->t;
        memcpy(s->y_good, yv, sizeof(double) * n);
        if (w->t >= s->b) return BGN_END;
    }
    for (;;) {
        double tret, t_old, t;
        int flag, look = 0, bad = 0;
        CVodeSetStopTime(s->mem, s->b);
        s->rhs_w = 0;
        flag = CVode(s->mem, s->b, s->y, &tret, CV_ONE_STEP);
        CVodeClearStopTime(s->mem);
        if (w->abort) return w->abort;
        if (flag < 0) { s->flag = flag; return BGN_SOLVER; }
        t_old = s->t_prev;
        t = tret;
        s->t_prev = t;
        w->t_old = t_old;
        w->t = t;
        /* R4, R5 */
        for (i = 0; i < nx; ++i) {
            double mag = fabs(yv[i]);
            if (s->bound ? !(mag <= s->bound[i]) : !isfinite(mag)) bad = 1;
        }
        for (i = nx; i < n; ++i)
            if (!isfinite(yv[i])) bad = 1;
        if (bad) {
            for (i = 0; i < n; ++i)
                if (!isfinite(yv[i])) return BGN_NONFINITE;
            look = 1;  /* past the blow-up bound: located by Python */
        }
        code = accept(s, t_old, t);
        if (code) return code;
        /* R6 */
        if (s->mon_on) {
            int low = 0, nanprod = 0;
            double minprod = INFINITY;
            if (!cheap_monitor(s, t, yv)) bgn_monitor(s, t, yv, s->m_new);
            for (i = 0; i < s->nmon; ++i) {
                double mo = s->m_old[i], mn = s->m_new[i], p = mo * mn;
                if (fabs(mn) < s->low[i]) low = 1;
                if (isnan(p)) nanprod = 1; else if (p < minprod) minprod = p;
            }
            if (low || (!nanprod && minprod <= 0)) {
                for (i = 0; i < s->nmon; ++i) {
                    double mo = s->m_old[i], mn = s->m_new[i];
                    int flip = (mo * mn < 0) || (mn == 0 && mo != 0);
                    int tiny = s->coupled[i] && fabs(mn) < w->block_eps && fabs(mo) >= w->block_eps;
                    if (flip || tiny) look = 1;
                }
            }
            if (low) look = 1;  /* ill-conditioning: warned by Python */
        }
        /* R7 */
        if (s->ng) {
            double h = t - t_old, dlt = 1e-4 * h, sp = 100 * spacing(t);
            const double* v;
            if (sp > dlt) dlt = sp;
            if (bgn_guards(s, t, yv, s->g_new) != 0) {
                look = 1;  /* Python evaluates it again and reports the failure */
            } else {
                if (!s->dg_valid) {
                    v = interp(s, t_old + dlt);
                    if (!v || bgn_guards(s, t_old + dlt, v, s->gtmp) != 0) { look = 1; goto done; }
                    for (i = 0; i < s->ng; ++i) s->dg_old[i] = (s->gtmp[i] - s->g_old[i]) / dlt;
                    s->dg_valid = 1;
                }
                v = interp(s, t - dlt);
                if (!v || bgn_guards(s, t - dlt, v, s->gtmp) != 0) { look = 1; goto done; }
                for (i = 0; i < s->ng; ++i) s->dg_new[i] = (s->g_new[i] - s->gtmp[i]) / dlt;
                for (i = 0; i < s->ng; ++i)
                    if (may_cross(s, i)) look = 1;
            }
        }
    done:
        if (look) return BGN_LOOK;
        /* outputs */
        if (s->te) {
            while (s->ie < s->nte && s->te[s->ie] <= t) {
                const double* v = interp(s, s->te[s->ie]);
                if (!v) { s->flag = -25; return BGN_SOLVER; }
                if (add_row(s, s->te[s->ie], v) != 0) { s->flag = -20; return BGN_SOLVER; }
                s->ie++;
            }
        } else if (add_row(s, t, yv) != 0) {
            s->flag = -20;
            return BGN_SOLVER;
        }
        code = commit(s);
        if (code >= 0) return code;
        if (s->yield_every > 0 && now() > s->next_yield) {
            s->next_yield = now() + s->yield_every;
            return BGN_YIELD;
        }
    }
}

const char* bgn_message(bgn_session* s) { return s->msg; }

int bgn_flag(bgn_session* s) { return s->flag; }
