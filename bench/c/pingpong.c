/*
 * The C MPI side of bench/c-mpi.mjs: osu_latency's ping-pong at one size and osu_bw's windowed
 * stream at another, between ranks 0 and 1, with the MPI library's shared-memory transport.
 * Prints `latency <bytes> <us>` (half a round trip) and `bandwidth <bytes> <MB/s>` (10^6 B/s).
 *
 *   mpicc -O2 -o pingpong pingpong.c && mpiexec -n 2 ./pingpong [latency-bytes] [bandwidth-bytes]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static double latency(int rank, char *buf, int n, int iters) {
  int peer = 1 - rank;
  double start = 0;
  for (int i = 0; i < iters + iters / 10; i++) {
    if (i == iters / 10) start = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - start) * 1e6 / (2.0 * iters);
}

static double bandwidth(int rank, char *buf, int n, int iters, int skip) {
  int peer = 1 - rank;
  MPI_Request reqs[WINDOW];
  MPI_Status statuses[WINDOW];
  char ack[4];
  double start = 0;
  for (int i = 0; i < iters + skip; i++) {
    if (i == skip) start = MPI_Wtime();
    for (int w = 0; w < WINDOW; w++) {
      if (rank == 0) MPI_Isend(buf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &reqs[w]);
      else MPI_Irecv(buf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &reqs[w]);
    }
    MPI_Waitall(WINDOW, reqs, statuses);
    if (rank == 0) MPI_Recv(ack, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Send(ack, 4, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
  }
  double seconds = MPI_Wtime() - start;
  return (double)n * WINDOW * iters / seconds / 1e6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int small = argc > 1 ? atoi(argv[1]) : 8;
  int large = argc > 2 ? atoi(argv[2]) : 1 << 20;
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "pingpong: run with 2 ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buf = malloc(large > small ? large : small);
  memset(buf, 1, large > small ? large : small);
  latency(rank, buf, small, 10000); /* warm-up */
  double us = latency(rank, buf, small, 10000);
  bandwidth(rank, buf, large, 5, 1); /* warm-up */
  double mbs = bandwidth(rank, buf, large, 20, 2);
  if (rank == 0) printf("latency %d %.3f\nbandwidth %d %.1f\n", small, us, large, mbs);
  free(buf);
  MPI_Finalize();
  return 0;
}
