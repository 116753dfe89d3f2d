// SPDX-License-Identifier: MIT
/*
 * The dragonfly's tables handed over and checked: the switches' own
 * routes filled, checked with the data's and repaired, the hosts'
 * requests to switch LIDs placed with their answers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cdg.h"
#include "../verify.h"
#include "deng.h"

/*
 * Management routes to switch LIDs off the scheme (rt_fill_unrouted) for
 * the switches that have none, dropped again, holes left, when they loop
 * or close a credit loop: the switches' own packets ride the data VLs.
 * With data, the same run of the verifier checks the hosts' routes too:
 * those off the scheme's pattern (round failed local cables) and ways
 * round on two VLs, alone or beside Valiant ones, may close a cycle on
 * one VL, which only the dependency graph can clear.  -EDEADLK when the
 * hosts' routes close one.  *clean: the tables left were checked, the
 * switches' own routes with them, and found free of credit loops.
 */
static int fill_checked(struct eng *e, struct rt_tables *t, bool data,
			bool *clean)
{
	size_t len = (size_t)t->nsw * (t->top + 1);
	uint8_t *keep = malloc(len + 1);
	struct vf_opts o = { .ebb_perms = 0 };
	struct vf_report r;
	long got;
	int ret = -ENOMEM;

	*clean = false;
	if (!keep)
		return -ENOMEM;
	memcpy(keep, t->lft, len);
	got = rt_fill_unrouted(t, e->fill);
	if (got < 0)
		goto out;
	ret = 0;
	if (!got && !data)
		goto out;
	o.skip_mgmt = !got;
	ret = vf_check(t, &o, &r);
	if (ret)
		goto out;
	if (got && (r.cdg_cycle || r.mgmt_cycle || r.mgmt_loops))
		memcpy(t->lft, keep, len);
	else
		*clean = got && vf_ok(&r);
	if (data && r.cdg_cycle)
		ret = -EDEADLK;
out:
	free(keep);
	return ret;
}

/*
 * The repair of the switches' own routes: a channel dependency graph on
 * (switch port, VL) nodes, node (pb[s] + port) * nv + VL.
 */
struct own_cdg {
	uint32_t *pb;		/* nsw + 1 */
	uint32_t nv;
	struct cdg g;
	uint32_t *pass;		/* per switch: a host's route passes it */
	uint32_t *kept;		/* per switch: a route kept passes it */
};

static uint32_t oc_node(const struct own_cdg *g, uint32_t s, unsigned int p,
			unsigned int vl)
{
	return (g->pb[s] + p) * g->nv + vl;
}

/*
 * Add r's dependencies on SL sl; with check, only if they close no
 * cycle and its VLs stay below nvl.  1 added, 0 refused, or -ENOMEM.
 */
static int oc_add(struct own_cdg *g, const struct dvl *dv,
		  const struct route *r, unsigned int sl, bool check)
{
	uint32_t from[MAX_HOPS], to[MAX_HOPS], a = NONE, b;
	unsigned int i, n = 0, vl;

	for (i = 0; i < r->hops; i++) {
		vl = dfv_hop_vl(dv, r->sw[i], r->in[i], r->out[i], sl);
		if (vl >= g->nv)
			return 0;
		b = oc_node(g, r->sw[i], r->out[i], vl);
		if (a != NONE) {
			from[n] = a;
			to[n++] = b;
		}
		a = b;
	}
	return cdg_add(&g->g, from, to, n, check);
}

static void oc_release(struct own_cdg *g)
{
	free(g->pb);
	cdg_release(&g->g);
	free(g->pass);
	free(g->kept);
}

static int oc_init(struct own_cdg *g, const struct rt_tables *t)
{
	const struct fabric *f = t->fab;
	uint32_t s;

	memset(g, 0, sizeof(*g));
	g->nv = t->vl->nvl;
	g->pb = malloc((t->nsw + 1) * sizeof(*g->pb));
	g->pass = calloc(t->nsw + 1, sizeof(*g->pass));
	g->kept = calloc(t->nsw + 1, sizeof(*g->kept));
	if (!g->pb || !g->pass || !g->kept)
		return -ENOMEM;
	g->pb[0] = 0;
	for (s = 0; s < t->nsw; s++)
		g->pb[s + 1] = g->pb[s] + f->nodes[t->sw_node[s]].nports + 1;
	return cdg_init(&g->g, g->pb[t->nsw] * g->nv);
}

/* The hosts' routes to every CA LID, whose graph the check found acyclic. */
static int own_data(struct eng *e, struct own_cdg *g)
{
	const struct dvl *dv = dvl_of(e->t);
	size_t w = e->t->top + 1;
	unsigned int lid;
	struct route r;
	uint32_t c, T;
	int ret;

	for (lid = 1; lid <= e->t->top; lid++) {
		T = dv->lid_sw[lid];
		if (!rt_lid_is_ca(e->t, lid) || T == NONE)
			continue;
		for (c = 0; c < e->nsw; c++) {
			if (!e->hosted[c] || c == T ||
			    dfp_trace(e, c, lid, T, &r))
				continue;
			ret = oc_add(g, dv, &r, dv->sl[c * w + lid], false);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/*
 * r, switch c's own route, on its SL, else (a switch without hosts) on
 * the first SL that closes no cycle.  1 added, 0 refused, or -ENOMEM.
 */
static int own_try(struct eng *e, struct own_cdg *g, uint32_t c,
		   unsigned int lid, const struct route *r)
{
	struct dvl *dv = dvl_of(e->t);
	uint8_t *sl = dv->sl + (size_t)c * (e->t->top + 1) + lid;
	unsigned int q;
	int ret;

	ret = oc_add(g, dv, r, *sl, true);
	for (q = 0; !ret && !e->hosted[c] && q <= SL_MAX; q++) {
		ret = oc_add(g, dv, r, q, true);
		if (ret > 0) {
			*sl = q;
			e->own_sl++;
		}
	}
	return ret;
}

/*
 * Switch c's own route to lid of T, judged against the graph: kept when
 * own_try() takes it; else, when no host's route and no route kept
 * passes c, through another neighbour of c that own_try() takes; else,
 * when no host's route passes c, c's entry is left empty: management
 * traffic only, to lid, through c has none.  -EDEADLK when none of those
 * is open.
 */
static int own_judge(struct eng *e, struct own_cdg *g, uint32_t c,
		     unsigned int lid, uint32_t T)
{
	uint8_t *ent = rt_lft(e->t, c) + lid, was = *ent;
	unsigned int p, np = e->t->fab->nodes[e->t->sw_node[c]].nports;
	struct route r;
	int ret;

	if (dfp_trace(e, c, lid, T, &r))
		return 0;
	ret = own_try(e, g, c, lid, &r);
	for (p = 1; !ret && g->pass[c] != lid && g->kept[c] != lid &&
	     p <= np; p++) {
		if (p == was || dfp_peer_sw(e, c, p) == NONE)
			continue;
		*ent = p;
		if (dfp_trace(e, c, lid, T, &r))
			continue;
		ret = own_try(e, g, c, lid, &r);
		e->own_port += ret > 0;
	}
	if (ret > 0) {
		for (p = 1; p < r.hops; p++)
			g->kept[r.sw[p]] = lid;
		return 0;
	}
	if (ret < 0)
		return ret;
	if (g->pass[c] == lid)
		return -EDEADLK;
	*ent = RT_NO_PATH;
	e->own_cut++;
	return 0;
}

/* Mark the switches a host's route to CA LID lid of T passes. */
static void own_pass(struct eng *e, struct own_cdg *g, unsigned int lid,
		     uint32_t T)
{
	struct route r;
	unsigned int i;
	uint32_t c;

	for (c = 0; c < e->nsw; c++) {
		if (!e->hosted[c] || c == T || dfp_trace(e, c, lid, T, &r))
			continue;
		for (i = 0; i < r.hops; i++)
			g->pass[r.sw[i]] = lid;
	}
}

/*
 * Every switch's own routes judged one by one, CA LIDs first (the
 * switches' routes to them are mostly the hosts'), then switch LIDs.
 * Each (switch, LID) is judged once against a graph that only grows, on
 * at most SL_MAX + 2 SLs through each of its ports, so the work is
 * bounded; an entry left empty only takes routes away, so what was kept
 * stays acyclic.
 */
static int own_repair(struct eng *e)
{
	const struct dvl *dv = dvl_of(e->t);
	struct own_cdg g;
	unsigned int lid, pass;
	uint32_t c, T;
	int ret;

	ret = oc_init(&g, e->t);
	if (!ret)
		ret = own_data(e, &g);
	for (pass = 0; !ret && pass < 2; pass++)
		for (lid = 1; !ret && lid <= e->t->top; lid++) {
			T = dv->lid_sw[lid];
			if (T == NONE || rt_lid_is_ca(e->t, lid) == pass)
				continue;
			if (!pass)
				own_pass(e, &g, lid, T);
			for (c = 0; !ret && c < e->nsw; c++)
				if (c != T && e->group[c] != NONE &&
				    !(e->hosted[c] && !pass))
					ret = own_judge(e, &g, c, lid, T);
		}
	oc_release(&g);
	return ret;
}

/*
 * Whether a switch that carries global cables (every one of a dragonfly,
 * a Dragonfly+ spine) has fewer than the most any has.
 */
static bool lost_global(const struct eng *e)
{
	const struct fabric *f = e->t->fab;
	unsigned int p, n;
	uint32_t s, node;

	for (s = 0; s < e->nsw; s++) {
		node = e->t->sw_node[s];
		if (e->group[s] == NONE || (e->di->plus && !e->di->spine[node]))
			continue;
		for (n = 0, p = 1; p <= f->nodes[node].nports; p++)
			n += e->di->global[f->nodes[node].port0 + p];
		if (n < e->di->h)
			return true;
	}
	return false;
}

/*
 * The switches' own packets ride the data VLs: where their routes close a
 * credit loop with the data's, own_repair() changes or cuts them.  On the
 * scheme's own pattern (every cable there, no Valiant route, nothing off
 * the pattern) own_routes() keeps them free of one by construction and
 * the check, as long as routing a large fabric, is spared.
 */
static int own_clean(struct eng *e, struct rt_tables *t)
{
	struct vf_opts o = { .ebb_perms = 0 };
	struct vf_report r;
	int ret;

	if (!e->irregular && !e->around && !e->valiant && !e->vroutes &&
	    !e->turns && !e->di->missing_local && !lost_global(e))
		return 0;
	ret = vf_check(t, &o, &r);
	if (ret || r.cdg_cycle || (!r.mgmt_cycle && !r.mgmt_loops))
		return ret;
	/* dfp_trace() reads the classes, which t owns by now */
	e->dv = dvl_of(t);
	ret = own_repair(e);
	e->dv = NULL;
	if (!ret)
		ret = vf_check(t, &o, &r);
	if (!ret && (r.mgmt_cycle || r.mgmt_loops))
		ret = -EDEADLK;
	return ret;
}

/*
 * Each host's request to the LID of a switch without hosts that does not
 * follow() the SL of the switch's route back, placed with that route
 * (dfp_pair_place()), with locks once the rest are locked (dfp_lock_all());
 * pairs no SL takes stay as they were.
 */
static int answers_place(struct eng *e)
{
	unsigned int lid, a, q, top = e->maxvl > e->dv->top_vl ? e->maxvl :
						   e->dv->top_vl;
	size_t w = e->t->top + 1;
	struct route r, b;
	uint32_t T, c, j;
	int ret = e->locks ? dfp_lock_all(e) : 0;

	if (ret)
		return ret;
	for (lid = 1; lid <= e->t->top; lid++) {
		T = e->dv->lid_sw[lid];
		/* a leaf's SL to a CA LID is its hosts' too */
		if (T == NONE || !e->dv->is_sw[lid] || e->hosted[T] ||
		    e->group[T] == NONE)
			continue;
		for (c = 0; c < e->nsw; c++) {
			if (c == T || !e->hosted[c] || e->group[c] == NONE ||
			    dfp_trace(e, c, lid, T, &r))
				continue;
			for (j = e->loff[c]; j < e->loff[c + 1]; j++) {
				a = e->lids[j];
				if (!rt_lid_is_ca(e->t, a) ||
				    dfp_trace(e, T, a, c, &b))
					continue;
				ret = dfp_pair_place(e, &r, &b,
						     e->dv->sl[T * w + a],
						     top, &q);
				if (ret && ret != -ERANGE)
					return ret;
				if (!ret && q != e->dv->sl[T * w + a]) {
					e->dv->sl[T * w + a] = q;
					e->answers_moved++;
				}
			}
		}
	}
	return 0;
}

/*
 * The hosts' requests to switch LIDs and the answers on SLs the data
 * leaves free, each on a VL above the data's (dfa_place()); where a pair
 * finds none, as they were, unchecked.
 */
static int answers_layer(struct eng *e, struct rt_tables *t)
{
	const struct fabric *f = t->fab;
	struct dvl *dv = dvl_of(t);
	size_t i, len = (size_t)t->nsw * (t->top + 1);
	unsigned int base = (e->maxvl > dv->top_vl ? e->maxvl : dv->top_vl) + 1;
	uint16_t used = 1;
	unsigned int p;
	uint32_t s, n;
	uint8_t *up;
	int ret;

	for (i = 0; i < len; i++)
		used |= (uint16_t)(1u << (dv->sl[i] & SL_MAX));
	up = calloc(f->nports + 1, sizeof(*up));
	if (!up)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++) {
		n = t->sw_node[s];
		for (p = 1; p <= f->nodes[n].nports; p++)
			up[f->nodes[n].port0 + p] =
				kind(dv->cls[(size_t)s * 256 + p]);
	}
	ret = dfa_place(&dv->ans, t, used, base, up);
	free(up);
	if (ret)
		return ret == -ERANGE ? 0 : ret;
	e->answers_off = false;
	e->answer_sls = dv->ans.nsl;
	dv->vl.nvl = base + dv->ans.nvl;
	return 0;
}

/*
 * own_clean() with the hosts' requests to switch LIDs on the SL of the
 * answer's route (answer_sl), then with those requests that do not
 * follow it placed with their answers; where the repair cannot clear
 * them so, the
 * tables as before it and the requests on the SL of their own switch's
 * route, whose answers the verifier may then find closing a loop.
 */
static int own_settle(struct eng *e, struct rt_tables *t)
{
	struct dvl *dv = dvl_of(t);
	size_t len = (size_t)t->nsw * (t->top + 1);
	size_t n_sl = e->own_sl, n_port = e->own_port, n_cut = e->own_cut;
	uint8_t *lft = malloc(len + 1), *sl = malloc(len + 1);
	struct ovr ov = { 0 };
	int ret = -ENOMEM;

	if (!lft || !sl || dfv_ovr_copy(&ov, &dv->ov))
		goto out;
	memcpy(lft, t->lft, len);
	memcpy(sl, dv->sl, len);
	dv->answer_sl = true;
	ret = own_clean(e, t);
	if (ret == -EDEADLK) {
		memcpy(t->lft, lft, len);
		memcpy(dv->sl, sl, len);
		e->own_sl = n_sl;
		e->own_port = n_port;
		e->own_cut = n_cut;
		e->dv = dv;
		ret = answers_place(e);
		e->dv = NULL;
		if (!ret)
			ret = own_clean(e, t);
	}
	if (ret != -EDEADLK && ret != -ENOTSUP)
		goto out;
	memcpy(t->lft, lft, len);
	memcpy(dv->sl, sl, len);
	free(dv->ov.key);
	free(dv->ov.vl);
	dv->ov = ov;
	ov = (struct ovr){ 0 };
	e->own_sl = n_sl;
	e->own_port = n_port;
	e->own_cut = n_cut;
	e->answers_moved = 0;
	dv->answer_sl = false;
	e->answers_off = true;
	ret = own_clean(e, t);
	if (!ret && e->layer)
		ret = answers_layer(e, t);
out:
	free(ov.key);
	free(ov.vl);
	free(lft);
	free(sl);
	return ret;
}

static void say(const struct eng *e, const struct rt_tables *t,
		char *detail, size_t len)
{
	size_t n;

	/* first, as the summary is cut to its length */
	snprintf(detail, len, "%s", e->answers_off ?
		 "switch answers unchecked; " :
		 "");
	n = strlen(detail);
	if (e->answer_sls) {
		snprintf(detail + n, len - n,
			 "switch answers on own VLs %u-%u; ",
			 t->vl->nvl - dvl_of(t)->ans.nvl, t->vl->nvl - 1);
		n = strlen(detail);
	}
	snprintf(detail + n, len - n,
		 "local-global-local on %u VL%s, SLs 0-%u; of %zu switch-to-LID routes %zu take an LMC LID through a third group, %zu go round a missing global cable (%zu with a local hop there), %zu off the pattern%s",
		 t->vl->nvl, t->vl->nvl > 1 ? "s" : "", e->slmax, e->pairs,
		 e->valiant, e->around, e->around3, e->irregular,
		 e->irregular || e->around3 ? " (dependencies checked)" : "");
	if (e->own_sl || e->own_port || e->own_cut) {
		n = strlen(detail);
		snprintf(detail + n, len - n,
			 "; own routes off credit loops: %zu SL, %zu port, %zu cut",
			 e->own_sl, e->own_port, e->own_cut);
	}
	if (e->answers_moved) {
		n = strlen(detail);
		snprintf(detail + n, len - n,
			 "; %zu requests to switches moved with their answers",
			 e->answers_moved);
	}
	if (e->turns) {
		n = strlen(detail);
		snprintf(detail + n, len - n,
			 "; %zu turn at a leaf to a spine, %zu requests with their answers, %zu spines not",
			 e->turns, e->turn_cas, e->turn_cut);
	}
}

/* Hand the SL and VL tables to t; the check may still refuse them. */
int dfc_finish(struct eng *e, struct rt_tables *t, char *detail,
	       size_t len)
{
	bool clean;
	int ret;

	e->dv->vl.nvl = e->maxvl + 1;
	e->dv->vl.path_sl = dfv_path_sl;
	e->dv->vl.switch_sl = true;
	e->dv->vl.sl2vl = dfv_sl2vl;
	e->dv->vl.ctx = e->dv;
	e->dv->vl.release = dfv_release;
	e->dv->answer_sl = true;
	t->vl = t->own_vl = &e->dv->vl;
	e->dv = NULL;
	ret = fill_checked(e, t, e->irregular || e->around3 ||
				 (e->vroutes && e->around), &clean);
	if (!ret && !clean) {
		ret = own_settle(e, t);
		if (ret == -EDEADLK)
			ret = -ENOTSUP;
		if (ret == -ENOTSUP)
			snprintf(detail, len, "the switches' own routes close a credit loop");
	}
	if (ret == -EDEADLK)
		snprintf(detail, len, "routes round failed cables close a credit loop");
	if (ret)
		return ret;
	say(e, t, detail, len);
	return 0;
}
