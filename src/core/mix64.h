/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mix64.h - the 64-bit finaliser (MurmurHash3's fmix64) the core's hash
 * tables spread their keys with.
 */
#ifndef STACKTOP_MIX64_H
#define STACKTOP_MIX64_H

#include <stdint.h>

/**
 * mix64() - spread the bits of @x over all 64 (a bijection: 0 stays 0)
 * @x: key
 */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif /* STACKTOP_MIX64_H */
