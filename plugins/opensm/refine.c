// SPDX-License-Identifier: MIT
/*
 * The refinement worker.  One at a time; the sweep thread only touches
 * the work after joining the worker, so nothing here needs a lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "refine.h"

/* The SM's own threads come first: the worker only uses idle time. */
#define GA_REFINE_NICE 10

struct ga_refine {
	ga_refine_done_fn done;
	void *ctx;
	pthread_t thr;
	bool joinable;
	atomic_bool stop;
	atomic_bool finished;		/* the worker is past its search */
	/*
	 * The work, all owned: the worker's while it runs (fab and gen it
	 * only reads), then the result.
	 */
	struct fabric *fab;
	struct rt_tables t;
	struct rt_jobs jobs;
	bool have;			/* fab, t and jobs are set */
	struct rt_summary sum;
	uint64_t gen, moves;
	bool ready;			/* finished: t is the result */
};

static void drop_work(struct ga_refine *r)
{
	if (r->have) {
		rt_tables_release(&r->t);
		rt_jobs_release(&r->jobs);
		fab_free(r->fab);
	}
	r->fab = NULL;
	r->have = false;
	r->ready = false;
}

static void *work(void *arg)
{
	struct ga_refine *r = arg;
	struct rt_jobsearch_stats st;
	int ret;

	/* Linux nices threads one by one; failing to is harmless */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid),
			  GA_REFINE_NICE);
	ret = rt_refine(r->fab, &r->sum, &r->jobs, &r->t, r->moves, &r->stop,
			&st);
	r->ready = !ret;
	atomic_store(&r->finished, true);
	if (!atomic_load(&r->stop))
		r->done(r->ctx, ret, r->gen, &st, r->sum.refine_seconds);
	return NULL;
}

int ga_refine_new(struct ga_refine **r, ga_refine_done_fn done, void *ctx)
{
	*r = calloc(1, sizeof(**r));
	if (!*r)
		return -ENOMEM;
	(*r)->done = done;
	(*r)->ctx = ctx;
	atomic_init(&(*r)->stop, false);
	atomic_init(&(*r)->finished, false);
	return 0;
}

void ga_refine_stop(struct ga_refine *r)
{
	if (!r || !r->joinable)
		return;
	atomic_store(&r->stop, true);
	pthread_join(r->thr, NULL);
	r->joinable = false;
	if (!r->ready)
		drop_work(r);
}

int ga_refine_start(struct ga_refine *r, struct fabric *f,
		    struct rt_tables *t, struct rt_jobs *jobs,
		    const struct rt_summary *sum, uint64_t gen,
		    uint64_t moves)
{
	int ret;

	ga_refine_stop(r);
	drop_work(r);
	r->fab = f;
	r->t = *t;
	r->jobs = *jobs;
	memset(t, 0, sizeof(*t));
	memset(jobs, 0, sizeof(*jobs));
	r->have = true;
	r->sum = *sum;
	r->gen = gen;
	r->moves = moves;
	atomic_store(&r->stop, false);
	atomic_store(&r->finished, false);
	ret = pthread_create(&r->thr, NULL, work, r);
	if (ret) {
		drop_work(r);
		return -ret;
	}
	r->joinable = true;
	return 0;
}

bool ga_refine_busy_with(struct ga_refine *r, const struct fabric *f,
			 uint64_t gen)
{
	return r && r->joinable && !atomic_load(&r->finished) &&
	       r->gen == gen && fab_same(r->fab, f);
}

bool ga_refine_failed(struct ga_refine *r)
{
	/* ready is written before finished is set, and never after */
	return r && r->joinable && atomic_load(&r->finished) && !r->ready;
}

void ga_refine_drop(struct ga_refine *r)
{
	if (!r)
		return;
	ga_refine_stop(r);
	drop_work(r);
}

void ga_refine_free(struct ga_refine *r)
{
	ga_refine_drop(r);
	free(r);
}

bool ga_refine_take(struct ga_refine *r, const struct fabric *f,
		    uint64_t gen, struct rt_tables *t,
		    struct rt_summary *sum)
{
	/* only the tables are copied: engines with VLs are not refined */
	if (!r || r->joinable || !r->ready || r->gen != gen ||
	    r->t.own_vl || r->t.vl || !fab_same(r->fab, f))
		return false;
	if (rt_tables_init(t, f)) {
		memset(t, 0, sizeof(*t));
		return false;
	}
	memcpy(t->lft, r->t.lft, (size_t)t->nsw * (t->top + 1));
	*sum = r->sum;
	return true;
}
