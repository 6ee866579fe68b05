/*
 * nogpu_hostpin.c -- hostpin.h without CUDA: nothing is ever page-locked.
 */
#include "hostpin.h"

int hostpin_register(void *p, size_t bytes)
{
    (void)p, (void)bytes;
    return 0;
}

void hostpin_unregister(void *p)
{
    (void)p;
}
