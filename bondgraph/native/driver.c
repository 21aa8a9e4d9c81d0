/* CVODE (SUNDIALS 7, BDF, dense direct linear solver, analytic Jacobian) driven from C
   on a compiled bond-graph model (bondgraph.codegen: bg_rhs, bg_jac, bg_out by pointer).

   No SUNDIALS header ships with the libraries this is linked against at run time (the
   ones inside the scikit-sundae wheel), so the part of the API used here is declared
   below for SUNDIALS 7.x built with sunindextype = int (32 bit) and sunrealtype =
   double. bondgraph.native.sundials checks the version before this is loaded, and
   bgn_abi_check() checks the index width on a live matrix.

   One session (bgn_new) holds the CVODE memory, the vectors, the dense matrix and
   linear solver, and its own model work buffers. bgn_init starts (CVodeInit, later
   CVodeReInit) at (t0, y0); bgn_advance integrates towards a stop time, writing the
   state at requested output times (or after every internal step) into caller
   buffers, and returns when it reaches the stop time, finds a root of the guard or
   monitor functions, the buffer is full, or the integration fails. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

typedef double sunrealtype;
typedef int sunindextype;
typedef int SUNErrCode;
typedef int SUNComm;
typedef struct _SUNContext* SUNContext;
typedef struct _generic_N_Vector* N_Vector;
typedef struct _generic_SUNMatrix* SUNMatrix;
typedef struct _generic_SUNLinearSolver* SUNLinearSolver;
typedef int (*CVRhsFn)(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data);
typedef int (*CVRootFn)(sunrealtype t, N_Vector y, sunrealtype* gout, void* user_data);
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
int CVodeSetMaxHnilWarns(void* mem, int mxhnil);
int CVodeSetStopTime(void* mem, sunrealtype tstop);
int CVodeClearStopTime(void* mem);
int CVodeRootInit(void* mem, int nrtfn, CVRootFn g);
int CVodeSetRootDirection(void* mem, int* rootdir);
int CVodeSetNoInactiveRootWarn(void* mem);
int CVodeGetRootInfo(void* mem, int* rootsfound);
int CVode(void* mem, sunrealtype tout, N_Vector yout, sunrealtype* tret, int itask);
int CVodeGetDky(void* mem, sunrealtype t, int k, N_Vector dky);
int CVodeGetNumSteps(void* mem, long int* n);
int CVodeGetNumRhsEvals(void* mem, long int* n);
int CVodeGetNumJacEvals(void* mem, long int* n);
int CVodeGetNumErrTestFails(void* mem, long int* n);
int CVodeGetNumNonlinSolvConvFails(void* mem, long int* n);
int CVodeGetNumNonlinSolvIters(void* mem, long int* n);
int CVodeGetNumLinSolvSetups(void* mem, long int* n);
int CVodeGetNumGEvals(void* mem, long int* n);
int CVodeGetLastStep(void* mem, sunrealtype* h);
int CVodeGetCurrentTime(void* mem, sunrealtype* t);
void CVodeFree(void** mem);

#define CV_BDF 2
#define CV_NORMAL 1
#define CV_ONE_STEP 2
#define CV_SUCCESS 0
#define CV_TSTOP_RETURN 1
#define CV_ROOT_RETURN 2

/* a generated model function (bondgraph.codegen) */
typedef int (*bg_fn)(double t, const double* xs, const double* us, const double* dus,
                     const double* ps, double* Us, double* out, double* work, int mode);

/* bgn_advance results */
#define BGN_TSTOP 0      /* reached the stop time */
#define BGN_ROOT 1       /* a guard or monitor function crossed zero */
#define BGN_FULL 2       /* the output buffer is full: call again to go on */
#define BGN_MODEL 3      /* the model failed (see bgn_failure): status of its function */
#define BGN_STALL 4      /* the solver kept calling at one time: stalled */
#define BGN_CVODE 5      /* CVODE returned an error flag (see bgn_flag, bgn_message) */
#define BGN_MAXSTEPS 6   /* more than max_steps internal steps towards one output time */

/* guard kinds: the quantity a guard reads */
#define G_STATE 0
#define G_OUTPUT 1
#define G_INPUT 2

typedef struct {
    SUNContext ctx;
    void* mem;
    N_Vector y, dky, atolv;
    SUNMatrix A;
    SUNLinearSolver LS;
    int n;            /* solver states: nx, plus 3 energy integrals when mode & 1 */
    int nx, nu, ndu, nU, nout, nwork;
    bg_fn rhs, jac, out;
    bg_fn mon; int nmon;            /* monitor: values whose zero crossing is an event */
    const double* ps;               /* parameters (the caller's vector: mode switches show) */
    double *us, *dus, *Us, *W, *J, *outs;
    int mode;
    int initialised, use_jac, fail_ret;
    /* guards: g = sign * (q - thr) - tol */
    int ng, *gkind, *gidx; double *gsign, *gthr, *gtol;
    int *rootdir, *rootinfo;
    /* failure record (the latest in time; status 0 a stall) */
    int has_fail, fail_status; double fail_t; double* fail_y;
    /* stall detection: calls without progress in time */
    double t_max; long calls_at_tmax, stall_limit; int stalled;
    /* every model call counted here as well */
    long nfev, njev;
    /* the last CVODE message */
    int flag; char msg[512];
    /* where bgn_advance is: the solver's time, its last return, rows still to write */
    double t_cur; int last_flag, step_row, pending; long steps_here;
} bgn_session;

static void bgn_errh(int line, const char* func, const char* file, const char* msg,
                     SUNErrCode code, void* data, SUNContext ctx) {
    bgn_session* s = (bgn_session*)data;
    (void)line; (void)file; (void)ctx;
    snprintf(s->msg, sizeof(s->msg), "%s: %s (code %d)", func ? func : "?", msg ? msg : "", code);
}

static void record_failure(bgn_session* s, double t, const double* y, int status) {
    if (!s->has_fail || t >= s->fail_t) {
        s->has_fail = 1;
        s->fail_status = status;
        s->fail_t = t;
        memcpy(s->fail_y, y, sizeof(double) * s->n);
    }
}

static int drv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* ud) {
    bgn_session* s = (bgn_session*)ud;
    double* yv = N_VGetArrayPointer(y);
    double* yd = N_VGetArrayPointer(ydot);
    int i, st;
    s->nfev++;
    if (t > s->t_max + 1e-12 * (fabs(t) > 1.0 ? fabs(t) : 1.0)) {
        s->t_max = t; s->calls_at_tmax = 0;
    } else if (++s->calls_at_tmax > s->stall_limit) {
        s->stalled = 1;
        record_failure(s, t, yv, 0);
        for (i = 0; i < s->n; ++i) yd[i] = NAN;
        return s->fail_ret;
    }
    st = s->rhs(t, yv, s->us, s->dus, s->ps, s->Us, yd, s->W, s->mode);
    if (st != 0) {
        record_failure(s, t, yv, st);
        for (i = 0; i < s->n; ++i) yd[i] = NAN;
        return s->fail_ret;
    }
    return 0;
}

static int drv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix Jm, void* ud,
                   N_Vector t1, N_Vector t2, N_Vector t3) {
    bgn_session* s = (bgn_session*)ud;
    double* yv = N_VGetArrayPointer(y);
    double* A = SUNDenseMatrix_Data(Jm);
    int n = s->n, nx = s->nx, r, c, st;
    (void)fy; (void)t1; (void)t2; (void)t3;
    s->njev++;
    st = s->jac(t, yv, s->us, s->dus, s->ps, s->Us, s->J, s->W, 0);
    if (st != 0) {
        record_failure(s, t, yv, st);
        for (r = 0; r < n * n; ++r) A[r] = NAN;
        return s->fail_ret;
    }
    /* J is row-major nx x nx; the dense matrix is column-major n x n (energy rows zero) */
    for (c = 0; c < n; ++c)
        for (r = 0; r < n; ++r)
            A[c * n + r] = (r < nx && c < nx) ? s->J[r * nx + c] : 0.0;
    return 0;
}

static int drv_root(sunrealtype t, N_Vector y, sunrealtype* g, void* ud) {
    bgn_session* s = (bgn_session*)ud;
    double* yv = N_VGetArrayPointer(y);
    int i, have_out = 0, st;
    for (i = 0; i < s->ng; ++i) {
        double q;
        if (s->gkind[i] == G_STATE) {
            q = yv[s->gidx[i]];
        } else {
            if (!have_out) {
                st = s->out(t, yv, s->us, s->dus, s->ps, s->Us, s->outs, s->W, 0);
                if (st != 0) { record_failure(s, t, yv, st); return -1; }
                have_out = 1;
            }
            q = s->gkind[i] == G_OUTPUT ? s->outs[s->gidx[i]] : s->us[s->gidx[i]];
        }
        g[i] = s->gsign[i] * (q - s->gthr[i]) - s->gtol[i];
    }
    if (s->nmon > 0) {
        st = s->mon(t, yv, s->us, s->dus, s->ps, s->Us, g + s->ng, s->W, 0);
        if (st != 0) { record_failure(s, t, yv, st); return -1; }
    }
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
    free(s->gkind); free(s->gidx); free(s->gsign); free(s->gthr); free(s->gtol);
    free(s->rootdir); free(s->rootinfo); free(s->fail_y);
    free(s);
}

/* sizes: nx, nu, ndu, nU, nout, nwork (bg_sizes of the model); energy: 3 extra states */
bgn_session* bgn_new(void* rhs, void* jac, void* out, const int* sizes, int energy) {
    bgn_session* s = (bgn_session*)calloc(1, sizeof(bgn_session));
    if (!s) return 0;
    s->rhs = (bg_fn)rhs; s->jac = (bg_fn)jac; s->out = (bg_fn)out;
    s->nx = sizes[0]; s->nU = sizes[1]; s->nu = sizes[2]; s->ndu = sizes[3];
    s->nout = sizes[5]; s->nwork = sizes[6];
    s->mode = energy ? 1 : 0;
    s->n = s->nx + (energy ? 3 : 0);
    s->fail_ret = 0;  /* the Python path's choice: NaN derivatives, CVODE goes on */
    s->stall_limit = 20000;
    s->us = (double*)calloc(s->nu + 1, sizeof(double));
    s->dus = (double*)calloc(s->ndu + 1, sizeof(double));
    s->Us = (double*)calloc(s->nU + 1, sizeof(double));
    s->W = (double*)calloc(s->nwork + 1, sizeof(double));
    s->J = (double*)calloc((size_t)s->nx * s->nx + 1, sizeof(double));
    s->outs = (double*)calloc(s->nout + 1, sizeof(double));
    s->fail_y = (double*)calloc(s->n + 1, sizeof(double));
    if (!s->us || !s->dus || !s->Us || !s->W || !s->J || !s->outs || !s->fail_y) { bgn_free(s); return 0; }
    if (SUNContext_Create(0, &s->ctx) != 0) { bgn_free(s); return 0; }
    SUNContext_ClearErrHandlers(s->ctx);
    SUNContext_PushErrHandler(s->ctx, bgn_errh, s);
    s->y = N_VNew_Serial(s->n, s->ctx);
    s->dky = N_VNew_Serial(s->n, s->ctx);
    s->atolv = N_VNew_Serial(s->n, s->ctx);
    s->A = SUNDenseMatrix(s->n, s->n, s->ctx);
    if (!s->y || !s->dky || !s->atolv || !s->A) { bgn_free(s); return 0; }
    s->LS = SUNLinSol_Dense(s->y, s->A, s->ctx);
    s->mem = CVodeCreate(CV_BDF, s->ctx);
    if (!s->LS || !s->mem) { bgn_free(s); return 0; }
    return s;
}

/* the model's input buffers (constant inputs are written here; tables overwrite them) */
double* bgn_us(bgn_session* s) { return s->us; }
double* bgn_dus(bgn_session* s) { return s->dus; }
void bgn_set_params(bgn_session* s, const double* ps) { s->ps = ps; }
/* the model's input tables (bg_inputs_t* of the generated code, or NULL): the first slot
   of the work array the model functions are given */
void bgn_set_input_tables(bgn_session* s, void* tables) { memcpy(s->W, &tables, sizeof tables); }
void bgn_set_monitor(bgn_session* s, void* mon, int nmon) { s->mon = (bg_fn)mon; s->nmon = mon ? nmon : 0; }
/* what a failed model call (or a stall) returns to CVODE: 0 (NaN values, go on),
   1 (recoverable: retry with a smaller step), -1 (stop at once) */
void bgn_set_failure_return(bgn_session* s, int ret) { s->fail_ret = ret; }
void bgn_set_stall_limit(bgn_session* s, long limit) { s->stall_limit = limit; }

/* guards: kind (G_STATE/G_OUTPUT/G_INPUT), index, sign, threshold, tolerance; every guard
   and monitor value is a root function crossing upwards (dir[i] for each, 0 both ways) */
int bgn_set_guards(bgn_session* s, int ng, const int* kind, const int* idx, const double* sign,
                   const double* thr, const double* tol, const int* dir) {
    int i, nr = ng + s->nmon;
    free(s->gkind); free(s->gidx); free(s->gsign); free(s->gthr); free(s->gtol);
    free(s->rootdir); free(s->rootinfo);
    s->ng = ng;
    s->gkind = (int*)calloc(ng + 1, sizeof(int)); s->gidx = (int*)calloc(ng + 1, sizeof(int));
    s->gsign = (double*)calloc(ng + 1, sizeof(double)); s->gthr = (double*)calloc(ng + 1, sizeof(double));
    s->gtol = (double*)calloc(ng + 1, sizeof(double));
    s->rootdir = (int*)calloc(nr + 1, sizeof(int)); s->rootinfo = (int*)calloc(nr + 1, sizeof(int));
    if (!s->gkind || !s->gidx || !s->gsign || !s->gthr || !s->gtol || !s->rootdir || !s->rootinfo) return -20;
    for (i = 0; i < ng; ++i) {
        s->gkind[i] = kind[i]; s->gidx[i] = idx[i]; s->gsign[i] = sign[i];
        s->gthr[i] = thr[i]; s->gtol[i] = tol[i];
    }
    for (i = 0; i < nr; ++i) s->rootdir[i] = dir ? dir[i] : 0;
    return 0;
}

/* (Re)start at (t0, y0) with the solver options; atol has n entries (vector tolerance)
   or one (scalar). Returns a CVODE flag (0: fine). */
int bgn_init(bgn_session* s, double t0, const double* y0, double rtol, const double* atol, int natol,
             double first_step, double max_step, long max_steps, int use_jac) {
    int flag, i, nr = s->ng + s->nmon;
    double* yv = N_VGetArrayPointer(s->y);
    memcpy(yv, y0, sizeof(double) * s->n);
    s->msg[0] = 0;
    s->flag = 0;
    s->has_fail = 0;
    s->pending = 0;
    s->step_row = 0;
    s->steps_here = 0;
    s->t_cur = t0;
    s->last_flag = 0;
    s->fail_status = 0;
    s->stalled = 0;
    s->t_max = -INFINITY;
    s->calls_at_tmax = 0;
    if (!s->initialised) {
        flag = CVodeInit(s->mem, drv_rhs, t0, s->y);
        if (flag < 0) return s->flag = flag;
        CVodeSetUserData(s->mem, s);
        flag = CVodeSetLinearSolver(s->mem, s->LS, s->A);
        if (flag < 0) return s->flag = flag;
        s->initialised = 1;
    } else {
        flag = CVodeReInit(s->mem, t0, s->y);
        if (flag < 0) return s->flag = flag;
    }
    if (natol == s->n) {
        double* a = N_VGetArrayPointer(s->atolv);
        for (i = 0; i < s->n; ++i) a[i] = atol[i];
        flag = CVodeSVtolerances(s->mem, rtol, s->atolv);
    } else {
        flag = CVodeSStolerances(s->mem, rtol, atol[0]);
    }
    if (flag < 0) return s->flag = flag;
    s->use_jac = use_jac;
    flag = CVodeSetJacFn(s->mem, use_jac ? drv_jac : 0);
    if (flag < 0) return s->flag = flag;
    CVodeSetMaxNonlinIters(s->mem, 3);
    CVodeSetMaxConvFails(s->mem, 10);
    CVodeSetInitStep(s->mem, first_step);
    CVodeSetMinStep(s->mem, 0.0);
    CVodeSetMaxStep(s->mem, max_step);
    CVodeSetMaxOrd(s->mem, 5);
    CVodeSetMaxHnilWarns(s->mem, -1);  /* "t + h = t" is reported by the failure itself */
    /* the step limit is counted here, per output interval (CVODE's counts per call) */
    CVodeSetMaxNumSteps(s->mem, -1);
    (void)max_steps;
    flag = CVodeRootInit(s->mem, nr, nr ? drv_root : 0);
    if (flag < 0) return s->flag = flag;
    if (nr) {
        CVodeSetRootDirection(s->mem, s->rootdir);
        CVodeSetNoInactiveRootWarn(s->mem);
    }
    return 0;
}

/* Integrate towards tstop. Output: the state at each requested time tout[*iout..nout)
   not beyond the solver's time (interpolated), or with every_step after every internal
   step; rows go to (tbuf, ybuf) from *nrec up to cap. Returns a BGN_* code; *t_end and
   y_end hold the solver's time and state (the root's at BGN_ROOT). first_tout is the
   time CVODE estimates its first step from (as its normal mode would). At BGN_FULL the
   rows of the last step not yet written are kept: the next call writes them first
   (before stepping on, while interpolation in that step is still valid). */
int bgn_advance(bgn_session* s, double tstop, double first_tout, const double* tout, int nout,
                int* iout, int every_step, long max_steps, double* tbuf, double* ybuf, int cap,
                int* nrec, double* t_end, double* y_end) {
    double* yv = N_VGetArrayPointer(s->y);
    double* dk = N_VGetArrayPointer(s->dky);
    int flag, code = BGN_TSTOP, n = s->n, need_step = !s->pending;
    double target = first_tout;
    CVodeSetStopTime(s->mem, tstop);
    for (;;) {
        double t;
        if (need_step) {
            flag = CVode(s->mem, target, s->y, &s->t_cur, CV_ONE_STEP);
            target = tstop;
            if (flag < 0) {
                s->flag = flag;
                code = s->stalled ? BGN_STALL : (s->has_fail ? BGN_MODEL : BGN_CVODE);
                break;
            }
            s->last_flag = flag;
            s->step_row = every_step && flag != CV_ROOT_RETURN;
            ++s->steps_here;
        }
        need_step = 1;
        t = s->t_cur;
        /* requested outputs up to t (at a root: up to the root, with its state) */
        while (*iout < nout && tout[*iout] <= t) {
            if (*nrec >= cap) { s->pending = 1; code = BGN_FULL; goto out; }
            if (tout[*iout] == t) {
                memcpy(ybuf + (size_t)(*nrec) * n, yv, sizeof(double) * n);
            } else if (CVodeGetDky(s->mem, tout[*iout], 0, s->dky) < 0) {
                s->flag = -25;
                code = BGN_CVODE;
                goto out;
            } else {
                memcpy(ybuf + (size_t)(*nrec) * n, dk, sizeof(double) * n);
            }
            tbuf[*nrec] = tout[*iout];
            ++*nrec; ++*iout;
            s->steps_here = 0;
        }
        if (s->step_row) {
            if (*nrec >= cap) { s->pending = 1; code = BGN_FULL; goto out; }
            tbuf[*nrec] = t;
            memcpy(ybuf + (size_t)(*nrec) * n, yv, sizeof(double) * n);
            ++*nrec;
            s->step_row = 0;
        }
        s->pending = 0;
        if (s->last_flag == CV_ROOT_RETURN) { code = BGN_ROOT; break; }
        if (s->last_flag == CV_TSTOP_RETURN) { code = BGN_TSTOP; break; }
        if (!every_step && max_steps > 0 && s->steps_here > max_steps) { code = BGN_MAXSTEPS; break; }
    }
out:
    *t_end = s->t_cur;
    memcpy(y_end, yv, sizeof(double) * n);
    CVodeClearStopTime(s->mem);
    return code;
}

int bgn_root_info(bgn_session* s, int* info) {
    int i, nr = s->ng + s->nmon, flag = CVodeGetRootInfo(s->mem, s->rootinfo);
    for (i = 0; i < nr; ++i) info[i] = s->rootinfo[i];
    return flag;
}

/* failure: (status of the model function, 0 for a stall; time; state) */
int bgn_failure(bgn_session* s, double* t, double* y) {
    *t = s->fail_t;
    memcpy(y, s->fail_y, sizeof(double) * s->n);
    return s->fail_status;
}

int bgn_has_failure(bgn_session* s) { return s->has_fail; }

const char* bgn_message(bgn_session* s) { return s->msg; }

int bgn_flag(bgn_session* s) { return s->flag; }

/* statistics since bgn_init: steps, rhs (CVODE's count), jac, error-test failures,
   nonlinear convergence failures, nonlinear iterations, linear setups, root evaluations;
   then the model calls counted here (rhs, jac) since the session was made */
void bgn_stats(bgn_session* s, long* st) {
    CVodeGetNumSteps(s->mem, st + 0);
    CVodeGetNumRhsEvals(s->mem, st + 1);
    CVodeGetNumJacEvals(s->mem, st + 2);
    CVodeGetNumErrTestFails(s->mem, st + 3);
    CVodeGetNumNonlinSolvConvFails(s->mem, st + 4);
    CVodeGetNumNonlinSolvIters(s->mem, st + 5);
    CVodeGetNumLinSolvSetups(s->mem, st + 6);
    CVodeGetNumGEvals(s->mem, st + 7);
    st[8] = s->nfev;
    st[9] = s->njev;
}
