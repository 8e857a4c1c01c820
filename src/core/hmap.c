// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hmap.c - open addressing with linear probing and backward-shift deletion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/hmap.h"

#define HMAP_MIN_SLOTS 64 /* the first allocation */

static inline uint64_t hmap_hash(uint64_t k)
{
	/* splitmix64 finaliser */
	k ^= k >> 30;
	k *= 0xbf58476d1ce4e5b9ULL;
	k ^= k >> 27;
	k *= 0x94d049bb133111ebULL;
	k ^= k >> 31;
	return k;
}

uint64_t hmap_mix(uint64_t h, uint64_t v)
{
	uint64_t r = hmap_hash(h ^ hmap_hash(v + 0x9e3779b97f4a7c15ULL));

	return r ? r : 1;
}

uint64_t hmap_chain(uint64_t key)
{
	return hmap_mix(key, 1);
}

void hmap_init(struct hmap *m)
{
	memset(m, 0, sizeof(*m));
}

void hmap_done(struct hmap *m)
{
	free(m->keys);
	free(m->vals);
	hmap_init(m);
}

void hmap_clear(struct hmap *m)
{
	if (m->keys)
		memset(m->keys, 0, m->cap * sizeof(*m->keys));
	m->len = 0;
	m->has_zero = false;
}

size_t hmap_len(const struct hmap *m)
{
	return m->len + (m->has_zero ? 1 : 0);
}

/* the slots double when they would be more than 3/4 full */
static bool hmap_full(const struct hmap *m)
{
	return (m->len + 1) * 4 > m->cap * 3;
}

size_t hmap_bytes(const struct hmap *m)
{
	return m->cap * (sizeof(*m->keys) + sizeof(*m->vals));
}

size_t hmap_grow_bytes(const struct hmap *m)
{
	if (!hmap_full(m))
		return 0;
	return (m->cap ? m->cap : HMAP_MIN_SLOTS) * (sizeof(*m->keys) + sizeof(*m->vals));
}

/* the slot of @key, or of the free slot where it goes (the map has slots) */
static size_t hmap_find(const struct hmap *m, uint64_t key)
{
	size_t mask = m->cap - 1, i;

	for (i = hmap_hash(key) & mask; m->keys[i] && m->keys[i] != key; i = (i + 1) & mask)
		;
	return i;
}

bool hmap_get(const struct hmap *m, uint64_t key, uint64_t *ret)
{
	size_t i;

	if (!key) {
		if (m->has_zero && ret)
			*ret = m->zero_val;
		return m->has_zero;
	}
	if (!m->cap)
		return false;
	i = hmap_find(m, key);
	if (!m->keys[i])
		return false;
	if (ret)
		*ret = m->vals[i];
	return true;
}

static void hmap_place(uint64_t *keys, uint64_t *vals, size_t cap, uint64_t key, uint64_t val)
{
	size_t mask = cap - 1, i;

	for (i = hmap_hash(key) & mask; keys[i] && keys[i] != key; i = (i + 1) & mask)
		;
	keys[i] = key;
	vals[i] = val;
}

static int hmap_grow(struct hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : HMAP_MIN_SLOTS, i;
	uint64_t *keys, *vals;

	if (cap > SIZE_MAX / sizeof(*keys))
		return -ENOMEM;
	keys = calloc(cap, sizeof(*keys));
	vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			hmap_place(keys, vals, cap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

uint64_t *hmap_slot(struct hmap *m, uint64_t key, bool *ret_new)
{
	size_t i = 0;

	if (!key) {
		if (ret_new)
			*ret_new = !m->has_zero;
		if (!m->has_zero)
			m->zero_val = 0;
		m->has_zero = true;
		return &m->zero_val;
	}
	if (m->cap) {
		i = hmap_find(m, key);
		if (m->keys[i]) {
			if (ret_new)
				*ret_new = false;
			return &m->vals[i];
		}
	}
	if (hmap_full(m)) {
		if (hmap_grow(m))
			return NULL;
		i = hmap_find(m, key);
	}
	m->keys[i] = key;
	m->vals[i] = 0;
	m->len++;
	if (ret_new)
		*ret_new = true;
	return &m->vals[i];
}

int hmap_put(struct hmap *m, uint64_t key, uint64_t val)
{
	uint64_t *v = hmap_slot(m, key, NULL);

	if (!v)
		return -ENOMEM;
	*v = val;
	return 0;
}

int hmap_copy(struct hmap *dst, const struct hmap *src)
{
	size_t i;

	hmap_clear(dst);
	if (src->has_zero && hmap_put(dst, 0, src->zero_val))
		return -ENOMEM;
	for (i = 0; i < src->cap; i++)
		if (src->keys[i] && hmap_put(dst, src->keys[i], src->vals[i]))
			return -ENOMEM;
	return 0;
}

bool hmap_del(struct hmap *m, uint64_t key)
{
	size_t mask, i, j, home;

	if (!key) {
		bool had = m->has_zero;

		m->has_zero = false;
		return had;
	}
	if (!m->cap)
		return false;
	mask = m->cap - 1;
	for (i = hmap_hash(key) & mask; m->keys[i] != key; i = (i + 1) & mask)
		if (!m->keys[i])
			return false;
	/* backward-shift: pull later entries of the probe run into the hole */
	for (j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		home = hmap_hash(m->keys[j]) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = 0;
	m->len--;
	return true;
}

bool hmap_next(const struct hmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	/* position 0 is the zero key's, then the slots */
	if (*pos == 0) {
		*pos = 1;
		if (m->has_zero) {
			*key = 0;
			*val = m->zero_val;
			return true;
		}
	}
	for (; *pos - 1 < m->cap; (*pos)++) {
		size_t i = *pos - 1;

		if (m->keys[i]) {
			*key = m->keys[i];
			*val = m->vals[i];
			(*pos)++;
			return true;
		}
	}
	return false;
}
