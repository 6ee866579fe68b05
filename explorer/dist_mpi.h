/*
 * dist_mpi.h -- the MPI transport of the distributed explorer
 * (explore_dist.h's struct dist_transport over MPI_COMM_WORLD): every
 * collective is the MPI one of the same name (MPI_Alltoall, MPI_Alltoallv
 * with a contiguous record type, MPI_Allreduce, MPI_Allgather, MPI_Bcast).
 * MPI's default error handler stays in place, so an MPI failure on any rank
 * ends the whole job.
 *
 * Built with MPI when the build found Open MPI (WX_HAVE_MPI, Makefile);
 * otherwise dist_mpi_start says so (WX_EINPUT).  Calls only from the thread
 * that called dist_mpi_start.
 */
#ifndef WX_DIST_MPI_H
#define WX_DIST_MPI_H

#include "explore_dist.h"

/* MPI_Init, then t filled for MPI_COMM_WORLD. */
int dist_mpi_start(struct dist_transport *t, struct wx_error *err);

/* A barrier (every rank has finished its output), then MPI_Finalize. */
void dist_mpi_end(struct dist_transport *t);

#endif
