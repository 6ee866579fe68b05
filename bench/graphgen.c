/* bench/graphgen.c -- benchmark graph generator for bench/bench_gpu_scc.sh.
 *
 * Origin: copied unchanged (below this comment) from the team's reference
 * tools (tools/graphgen.c of the warpex reference material, written for the
 * team to generate the SCC benchmark graphs of issue 4), so that the
 * benchmark builds from the repository alone.  Not part of warpex's build;
 * bench_gpu_scc.sh compiles it with `gcc -O3 -std=c11`.
 */
/* graphgen: benchmark graph generator + sequential iterative Tarjan baseline.
 *
 *   gcc -O3 -std=c11 -o graphgen graphgen.c
 *   ./graphgen KIND SIZE DEG OUT.egr
 *     KIND 0: 3-D torus SIZE^3, 6 directed neighbours (one giant SCC)        e.g. 0 200 0
 *     KIND 1: uniform random, SIZE vertices, out-degree DEG (xorshift, fixed seed) e.g. 1 16000000 4
 *     KIND 2: 3-D grid SIZE^3 with +x,+y,+z edges and back edges with p = 1/64 (many SCCs) e.g. 2 200 0
 *
 * Output (.egr): little-endian int32 n, int32 m, int32 offsets[n+1], int32 targets[m] (CSR).
 * Prints n, m and the SCC count found by an iterative Tarjan with its time. Deterministic. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
static uint64_t rs=88172645463325252ull;
static inline uint64_t xr(void){rs^=rs<<13;rs^=rs>>7;rs^=rs<<17;return rs;}
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
typedef struct{int n; long m; int*idx; int*lst;} G;
static void wr(G*g,const char*f){FILE*o=fopen(f,"wb");if(!o){perror(f);exit(1);}int m=(int)g->m;
 if(fwrite(&g->n,4,1,o)!=1||fwrite(&m,4,1,o)!=1||fwrite(g->idx,4,g->n+1,o)!=(size_t)g->n+1||fwrite(g->lst,4,g->m,o)!=(size_t)g->m){fprintf(stderr,"write failed\n");exit(1);}fclose(o);}
/* kind 0: 3D torus, 6 directed neighbours (one giant SCC)
   kind 1: uniform random, out-degree d
   kind 2: 3D grid, only +x,+y,+z edges plus back-edges with prob 1/64 (many SCCs) */
static G make(int kind,int s,int d){G g;int n=(kind==1)?s:s*s*s;g.n=n;g.idx=malloc(sizeof(int)*(n+1));
 long cap=(long)n*(kind==1?d:6);g.lst=malloc(sizeof(int)*cap);long m=0;
 for(int v=0;v<n;v++){g.idx[v]=(int)m;
  if(kind==1){for(int k=0;k<d;k++)g.lst[m++]=(int)(xr()%n);}
  else{int x=v%s,y=(v/s)%s,z=v/(s*s);
   int nb[6]={((x+1)%s)+y*s+z*s*s,((x+s-1)%s)+y*s+z*s*s,x+((y+1)%s)*s+z*s*s,x+((y+s-1)%s)*s+z*s*s,x+y*s+((z+1)%s)*s*s,x+y*s+((z+s-1)%s)*s*s};
   if(kind==0){for(int k=0;k<6;k++)g.lst[m++]=nb[k];}
   else{if(x+1<s)g.lst[m++]=nb[0];if(y+1<s)g.lst[m++]=nb[2];if(z+1<s)g.lst[m++]=nb[4];
        if(x>0&&xr()%64==0)g.lst[m++]=nb[1];if(y>0&&xr()%64==0)g.lst[m++]=nb[3];if(z>0&&xr()%64==0)g.lst[m++]=nb[5];}}}
 g.idx[n]=(int)m;g.m=m;return g;}
/* iterative Tarjan; returns number of SCCs */
static long tarjan(G*g){int n=g->n;int*ix=malloc(4L*n),*lo=malloc(4L*n),*st=malloc(4L*n),*cs=malloc(4L*n),*ep=malloc(4L*n);char*on=calloc(n,1);
 for(int i=0;i<n;i++)ix[i]=-1;int t=0,sp=0;long c=0;
 for(int r=0;r<n;r++){if(ix[r]>=0)continue;int cp=0;cs[cp++]=r;ix[r]=lo[r]=t++;st[sp++]=r;on[r]=1;ep[r]=g->idx[r];
  while(cp){int v=cs[cp-1];if(ep[v]<g->idx[v+1]){int w=g->lst[ep[v]++];
     if(ix[w]<0){ix[w]=lo[w]=t++;st[sp++]=w;on[w]=1;ep[w]=g->idx[w];cs[cp++]=w;}else if(on[w]&&ix[w]<lo[v])lo[v]=ix[w];}
   else{cp--;if(cp){int u=cs[cp-1];if(lo[v]<lo[u])lo[u]=lo[v];}
     if(lo[v]==ix[v]){int w;do{w=st[--sp];on[w]=0;}while(w!=v);c++;}}}}
 free(ix);free(lo);free(st);free(cs);free(ep);free(on);return c;}
int main(int argc,char**argv){if(argc<5){fprintf(stderr,"usage: gen kind size deg out.egr\n");return 1;}
 int kind=atoi(argv[1]),s=atoi(argv[2]),d=atoi(argv[3]);G g=make(kind,s,d);wr(&g,argv[4]);
 double t0=now();long c=tarjan(&g);double t1=now();
 printf("gen %s: n=%d m=%ld; sequential Tarjan: %ld SCCs in %.3f s (%.1f Medges/s)\n",argv[4],g.n,g.m,c,t1-t0,g.m/(t1-t0)/1e6);return 0;}
