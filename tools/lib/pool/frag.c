// SPDX-License-Identifier: MIT
/*
 * FGD's fragmentation and best fit's room left, for one host and one
 * request: what the scheduler core's packing policies weigh.
 */
#include <math.h>
#include <string.h>

#include "frag.h"

void frg_mix_add(struct frg_mix *m, const struct frg_req *r)
{
	struct frg_type y = {
		.milli = r->gpus ? FRG_MILLI : r->milli,
		.gpus = r->gpus ? r->gpus : 1, .cpu = r->cpu,
		.models = r->models,
	};
	size_t i;

	if (!r->gpus && !r->milli)
		y.gpus = 0;
	for (i = 0; i < m->nt; i++)
		if (m->t[i].milli == y.milli && m->t[i].gpus == y.gpus &&
		    m->t[i].cpu == y.cpu && m->t[i].models == y.models)
			break;
	if (i == m->nt) {
		if (m->nt == FRG_TYPES)
			return;
		m->t[m->nt++] = y;
	}
	m->t[i].n++;
	m->n++;
}

void frg_mix_trim(struct frg_mix *m, double pct)
{
	struct frg_type x;
	uint64_t cum = 0;
	size_t i, k;

	for (i = 1; i < m->nt; i++)	/* stable: the first of equals first */
		for (k = i; k && m->t[k - 1].n < m->t[k].n; k--) {
			x = m->t[k];
			m->t[k] = m->t[k - 1];
			m->t[k - 1] = x;
		}
	for (i = 0; i < m->nt && (double)cum < pct / 100 * (double)m->n; i++)
		cum += m->t[i].n;
	m->nt = i;
	m->n = cum;
}

double frg_amount(const struct frg_mix *m, const struct frg_host *h)
{
	unsigned int i, t, fit;
	double f = 0, all = 0, part, left;

	for (i = 0; i < h->n; i++)
		all += h->g[i];
	if (!all)
		return 0;
	for (t = 0; t < m->nt; t++) {
		const struct frg_type *y = &m->t[t];

		part = all;
		if (y->gpus && h->cpu >= y->cpu &&
		    (!y->models || y->models >> h->model & 1)) {
			for (i = 0, fit = 0, left = 0; i < h->n; i++) {
				if (h->g[i] >= y->milli)
					fit++;
				else
					left += h->g[i];
			}
			if (fit >= y->gpus)
				part = left;
		}
		f += (double)y->n * part;
	}
	return m->n ? f / (double)m->n : 0;
}

double frg_score(const struct frg_mix *m, const struct frg_host *h,
		 const struct frg_req *r, int *gpu)
{
	uint16_t g[FRG_MAXG];
	struct frg_host a = *h;
	unsigned int i, k;
	double before = frg_amount(m, h), best = HUGE_VAL, d;
	int pts, most = -1;

	memcpy(g, h->g, h->n * sizeof(*g));
	a.g = g;
	if (h->cpu != FRG_NOCPU)
		a.cpu -= r->cpu;
	*gpu = -1;
	if (!r->milli) {	/* whole GPUs, or CPU only */
		for (i = 0, k = 0; i < h->n && k < r->gpus; i++)
			if (g[i] == FRG_MILLI) {
				g[i] = 0;
				k++;
			}
		return frg_amount(m, &a) - before;
	}
	for (i = 0; i < h->n; i++) {
		uint16_t keep = g[i];

		if (keep < r->milli)
			continue;
		/* GPUs equally free are equal: try one of each */
		for (k = 0; k < i && g[k] != keep; k++)
			;
		if (k < i)
			continue;
		g[i] = (uint16_t)(keep - r->milli);
		d = frg_amount(m, &a) - before;
		g[i] = keep;
		pts = frg_points(d);
		if (pts > most) {
			most = pts;
			best = d;
			*gpu = (int)i;
		}
	}
	return best;
}

int frg_points(double f)
{
	return (int)(100 / (1 + exp(f / 1000)));
}

double frg_mix_cpu(const struct frg_mix *m)
{
	double cpu = 0, milli = 0;
	size_t t;

	for (t = 0; t < m->nt; t++)
		if (m->t[t].gpus) {	/* CPU-only pods need no GPU's */
			cpu += (double)m->t[t].n * m->t[t].cpu;
			milli += (double)m->t[t].n * m->t[t].gpus *
				 m->t[t].milli;
		}
	return milli ? cpu / milli : 0;
}

/* Whole GPUs of gpu milli free that cpu milli-cores cannot serve. */
static double stranded(double gpu, double cpu, double cpg)
{
	return floor(fmax(gpu - cpu / cpg, 0) / FRG_MILLI);
}

int frg_strand(const struct frg_host *h, const struct frg_req *r, double cpg)
{
	double gl = 0, use = r->gpus ? (double)r->gpus * FRG_MILLI : r->milli;
	unsigned int i;

	if (h->cpu == FRG_NOCPU || cpg <= 0)
		return 0;
	for (i = 0; i < h->n; i++)
		gl += h->g[i];
	return (int)(stranded(gl - use, (double)h->cpu - r->cpu, cpg) -
		     stranded(gl, h->cpu, cpg));
}

int frg_best_gpu(const struct frg_host *h, unsigned int milli)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < h->n; i++)
		if (h->g[i] >= milli && (best < 0 || h->g[i] < h->g[best]))
			best = (int)i;
	return best;
}

double frg_left(const struct frg_host *h, const struct frg_req *r, int gpu,
		unsigned int maxg, uint32_t maxcpu)
{
	double gl = 0;
	unsigned int i, whole = 0;

	if (h->cpu == FRG_NOCPU) {
		if (r->gpus) {
			for (i = 0; i < h->n; i++)
				whole += h->g[i] == FRG_MILLI;
			return (double)whole - r->gpus;
		}
		return gpu >= 0 ? (h->g[gpu] - (double)r->milli) / 1e3 : 0;
	}
	for (i = 0; i < h->n; i++)
		gl += h->g[i];
	gl -= r->gpus ? (double)r->gpus * FRG_MILLI : r->milli;
	return gl / ((double)maxg * FRG_MILLI) +
	       (double)(h->cpu - r->cpu) / maxcpu;
}

void frg_waste(const struct frg_mix *m, uint32_t cpu, double *w)
{
	double f[FRG_TYPES], all, acc, q;
	unsigned int g, sz[FRG_TYPES];
	size_t t, k, n = 0;

	for (t = 0; m->n && t < m->nt; t++) {
		if (m->t[t].gpus != 1 || m->t[t].milli >= FRG_MILLI ||
		    m->t[t].cpu > cpu)
			continue;
		for (k = 0; k < n && sz[k] != m->t[t].milli; k++)
			;
		if (k == n) {
			sz[n] = m->t[t].milli;
			f[n++] = 0;
		}
		f[k] += (double)m->t[t].n / (double)m->n;
	}
	w[0] = 0;
	for (g = 1; g < FRG_MILLI; g++) {
		for (k = 0, all = acc = 0; k < n; k++)
			if (sz[k] <= g) {
				all += f[k];
				acc += f[k] * w[g - sz[k]];
			}
		q = fmin(all / FRG_SURE, 1);
		w[g] = all ? (1 - q) * g + q * acc / all : g;
	}
	w[FRG_MILLI] = 0;
}
