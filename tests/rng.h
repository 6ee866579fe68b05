/*
 * rng.h -- the seeded xorshift64* generator of the random tests: the same
 * seed gives the same sequence on every machine, so a printed seed
 * reproduces a failure.
 */
#ifndef WX_TEST_RNG_H
#define WX_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state;

__attribute__((unused)) static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

__attribute__((unused)) static uint64_t rnd_below(uint64_t n)
{
    return n ? rnd() % n : 0;
}

#endif
