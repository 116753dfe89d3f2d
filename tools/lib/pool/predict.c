// SPDX-License-Identifier: MIT
/*
 * The run-time history: an open-addressing hash of the log run times
 * per key (user, name and size; user and size; user), grown by doubling.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict.h"

#define NKEYS 3
#define FIRST_CAP 1024
#define NO_HISTORY 3600		/* s, before any job finished */

struct hent {
	uint64_t key;		/* 0: empty */
	double sum;		/* of log run times */
	uint32_t n;
};

struct prd {
	struct hent *ht;
	size_t cap, n;
	double glog;		/* every job's, for the last fallback */
	uint64_t gn;
};

int prd_new(struct prd **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void prd_free(struct prd *p)
{
	if (!p)
		return;
	free(p->ht);
	free(p);
}

static uint64_t fnv(uint64_t h, const void *d, size_t n)
{
	const unsigned char *c = d;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

/* Keys, most specific first; never 0 (the empty mark), never equal. */
static void keys(const struct prd_job *j, uint64_t k[NKEYS])
{
	uint64_t base = fnv(0xcbf29ce484222325ull, &j->user, sizeof(j->user));
	uint64_t size = fnv(base, &j->milli, sizeof(j->milli));
	const char *nm = j->name ? j->name : "";

	k[0] = fnv(size, nm, strlen(nm)) | 1;
	k[1] = (size | 1) ^ 2;
	k[2] = (base | 1) ^ 4;
}

/* key's entry, or the empty one where it would go; NULL: no table. */
static struct hent *find(const struct prd *p, uint64_t key)
{
	size_t i;

	if (!p->cap)
		return NULL;
	for (i = key & (p->cap - 1); p->ht[i].key; i = (i + 1) & (p->cap - 1))
		if (p->ht[i].key == key)
			return &p->ht[i];
	return &p->ht[i];
}

static int grow(struct prd *p)
{
	struct hent *old = p->ht;
	size_t oc = p->cap, i;

	p->cap = oc ? oc * 2 : FIRST_CAP;
	p->ht = calloc(p->cap, sizeof(*p->ht));
	if (!p->ht) {
		p->ht = old;
		p->cap = oc;
		return -ENOMEM;
	}
	for (i = 0; i < oc; i++)
		if (old[i].key)
			*find(p, old[i].key) = old[i];
	free(old);
	return 0;
}

int prd_learn(struct prd *p, const struct prd_job *j, double runtime)
{
	double lg = log(runtime > 1 ? runtime : 1);
	uint64_t k[NKEYS];
	struct hent *e;
	int i;

	/* room for all keys first, so a sample counts everywhere or nowhere */
	while (2 * (p->n + NKEYS) > p->cap)
		if (grow(p))
			return -ENOMEM;
	keys(j, k);
	for (i = 0; i < NKEYS; i++) {
		e = find(p, k[i]);
		if (!e->key) {
			e->key = k[i];
			p->n++;
		}
		e->sum += lg;
		e->n++;
	}
	p->glog += lg;
	p->gn++;
	return 0;
}

double prd_predict(const struct prd *p, const struct prd_job *j, bool *hist)
{
	const struct hent *e;
	uint64_t k[NKEYS];
	int i;

	if (hist)
		*hist = false;
	keys(j, k);
	for (i = 0; i < NKEYS; i++) {
		e = find(p, k[i]);
		if (e && e->key && e->n) {
			if (hist)
				*hist = true;
			return exp(e->sum / e->n);
		}
	}
	if (j->limit > 0)
		return j->limit;
	return p->gn ? exp(p->glog / (double)p->gn) : NO_HISTORY;
}
