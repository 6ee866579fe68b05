/*
 * dist_mpi.c -- the MPI transport (dist_mpi.h).  Counts and displacements
 * arrive as 64-bit record counts; explore_dist keeps every round below
 * DIST_MAX_RECORDS records per rank, so they fit MPI's int arguments.
 */
#include "dist_mpi.h"

#ifdef WX_HAVE_MPI

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

static int mpi_fail(struct wx_error *err, const char *what, int code)
{
    char msg[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, msg, &n) != MPI_SUCCESS)
        n = 0;
    msg[n] = 0;
    return wx_fail(err, WX_ESYSTEM, NULL, 0, 0, "%s failed: %s", what, msg);
}

static int mpi_alltoall(void *ctx, const uint64_t *send, uint64_t *recv, struct wx_error *err)
{
    (void)ctx;
    int rc = MPI_Alltoall(send, 1, MPI_UINT64_T, recv, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? WX_OK : mpi_fail(err, "MPI_Alltoall", rc);
}

/* The int arrays MPI_Alltoallv takes, from 64-bit ones (n entries). */
static int to_int(const uint64_t *a, int *out, int n)
{
    for (int r = 0; r < n; r++) {
        if (a[r] > INT_MAX)
            return -1;
        out[r] = (int)a[r];
    }
    return 0;
}

static int mpi_alltoallv(void *ctx, const uint32_t *send, const uint64_t *scount, const uint64_t *sdispl,
                         uint32_t *recv, const uint64_t *rcount, const uint64_t *rdispl, uint32_t words,
                         struct wx_error *err)
{
    (void)ctx;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *a = malloc(4 * (size_t)n * sizeof *a);
    if (!a)
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "out of memory");
    if (to_int(scount, a, n) || to_int(sdispl, a + n, n) || to_int(rcount, a + 2 * n, n) ||
        to_int(rdispl, a + 3 * n, n)) {
        free(a);
        return wx_fail(err, WX_ELIMIT, NULL, 0, 0, "an exchange of more than 2^31 records");
    }
    MPI_Datatype rec;
    int rc = MPI_Type_contiguous((int)words, MPI_UINT32_T, &rec);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(&rec)) == MPI_SUCCESS) {
        rc = MPI_Alltoallv(send, a, a + n, rec, recv, a + 2 * n, a + 3 * n, rec, MPI_COMM_WORLD);
        MPI_Type_free(&rec);
    }
    free(a);
    return rc == MPI_SUCCESS ? WX_OK : mpi_fail(err, "MPI_Alltoallv", rc);
}

static int mpi_allreduce(void *ctx, uint64_t *buf, size_t n, enum dist_op op, struct wx_error *err)
{
    (void)ctx;
    MPI_Op o = op == DIST_SUM ? MPI_SUM : op == DIST_MAX ? MPI_MAX : MPI_MIN;
    int rc = MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_UINT64_T, o, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? WX_OK : mpi_fail(err, "MPI_Allreduce", rc);
}

static int mpi_allgather(void *ctx, const uint64_t *mine, uint64_t *all, size_t n, struct wx_error *err)
{
    (void)ctx;
    int rc = MPI_Allgather(mine, (int)n, MPI_UINT64_T, all, (int)n, MPI_UINT64_T, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? WX_OK : mpi_fail(err, "MPI_Allgather", rc);
}

static int mpi_bcast(void *ctx, uint32_t *buf, size_t n, int root, struct wx_error *err)
{
    (void)ctx;
    int rc = MPI_Bcast(buf, (int)n, MPI_UINT32_T, root, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? WX_OK : mpi_fail(err, "MPI_Bcast", rc);
}

int dist_mpi_start(struct dist_transport *t, struct wx_error *err)
{
    int rc = MPI_Init(NULL, NULL);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, "MPI_Init", rc);
    *t = (struct dist_transport){
        .alltoall = mpi_alltoall, .alltoallv = mpi_alltoallv, .allreduce = mpi_allreduce,
        .allgather = mpi_allgather, .bcast = mpi_bcast,
    };
    MPI_Comm_rank(MPI_COMM_WORLD, &t->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t->size);
    return WX_OK;
}

void dist_mpi_end(struct dist_transport *t)
{
    (void)t;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
}

#else /* built without MPI */

int dist_mpi_start(struct dist_transport *t, struct wx_error *err)
{
    (void)t;
    return wx_fail(err, WX_EINPUT, NULL, 0, 0, "started by mpirun, but this warpex was built without MPI "
                   "(install Open MPI -- apt-get install libopenmpi-dev openmpi-bin -- and rebuild)");
}

void dist_mpi_end(struct dist_transport *t)
{
    (void)t;
}

#endif
