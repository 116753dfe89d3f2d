// SPDX-License-Identifier: MIT
/*
 * counters: the traffic on every switch port right now.  Discovers the
 * fabric, samples the port counters twice and prints each directed link's
 * data and xmit-wait rate, busiest first.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "ibpoolroute.h"
#include "report.h"
#include "tools/lib/livefab/livefab.h"
#include "topology/monotime.h"

/* What the report needs besides the rates; all borrowed. */
struct sweep {
	const struct lf *v;
	const struct lf_sample *a, *b;
	double interval;	/* between the starts of the two sweeps */
	size_t links;		/* rated links, of which the report shows n */
};

static int sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* Links with a rate first, busiest data, then most waiting. */
static int cmp_busy(const void *x, const void *y)
{
	const struct lf_rate *a = x, *b = y;
	bool na = a->flags & (LF_RATE_NEW | LF_RATE_GONE);
	bool nb = b->flags & (LF_RATE_NEW | LF_RATE_GONE);

	if (na != nb)
		return na - nb;
	if (a->bytes_per_s != b->bytes_per_s)
		return a->bytes_per_s < b->bytes_per_s ? 1 : -1;
	if (a->wait_per_s != b->wait_per_s)
		return a->wait_per_s < b->wait_per_s ? 1 : -1;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return a->port - b->port;
}

static const char *const flag_names[] = {
	"new", "gone", "reset", "saturated", "no-xmit-wait",
};

/* "-" or the flags joined by ','. */
static const char *flags_str(unsigned int flags, char *buf, size_t len)
{
	size_t i, off = 0;

	*buf = '\0';
	for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (flags & (1u << i))
			off += snprintf(buf + off, off < len ? len - off : 0,
					"%s%s", off ? "," : "", flag_names[i]);
	return *buf ? buf : "-";
}

static const char *desc(const struct lf *v, uint32_t n)
{
	const struct fabric *f = lf_fabric(v);

	return n < f->nnodes ? f->nodes[n].desc : "?";
}

/*
 * The nominal rate of r's link in bytes a second from the fabric's
 * PortInfo, 0 when not known (a link gone from the later sample).
 */
static double link_rate(const struct sweep *sw, const struct lf_rate *r)
{
	const struct fabric *f = lf_fabric(sw->v);

	if (r->flags & LF_RATE_GONE || r->node >= f->nnodes ||
	    r->port > f->nodes[r->node].nports)
		return 0;
	return fab_port_rate(fab_port(f, r->node, r->port));
}

static void text(FILE *out, const struct sweep *sw, const struct lf_rate *r,
		 size_t n)
{
	const struct lf_sample *b = sw->b;
	char fl[64], share[16];
	double link;
	size_t i;

	fprintf(out, "source      : %s\n", lf_source(sw->v));
	fprintf(out, "fabric      : %zu switches, %zu CAs, discovered in %.3f s\n",
		lf_fabric(sw->v)->nsw, lf_fabric(sw->v)->nca,
		lf_stats(sw->v)->discover_seconds);
	fprintf(out, "sampled     : %zu links of %zu switches, 2 samples %.3f s apart\n",
		b->n, lf_fabric(sw->v)->nsw - b->nfail, sw->interval);
	fprintf(out, "sweep       : %" PRIu64 " PerfMgt queries in %.3f s\n",
		b->queries, b->seconds);
	if (!sw->a->nfail && !b->nfail)
		fprintf(out, "not answering: none\n");
	for (i = 0; i < sw->a->nfail + b->nfail; i++) {
		const struct lf_ctr_fail *e = i < sw->a->nfail ?
			&sw->a->fail[i] : &b->fail[i - sw->a->nfail];

		fprintf(out, "not answering: 0x%016" PRIx64 " '%s' (%s sample): %s\n",
			e->guid, desc(sw->v, e->node),
			i < sw->a->nfail ? "first" : "second",
			strerror(-e->err));
	}
	fprintf(out, "shown       : %zu busiest of %zu links\n", n, sw->links);
	fprintf(out, "%4s  %-22s %-22s %12s %9s %8s %12s  %-6s %s\n", "rank",
		"from", "to", "data Gb/s", "link Gb/s", "of link",
		"wait ticks/s", "flags", "names");
	for (i = 0; i < n; i++) {
		link = link_rate(sw, &r[i]);
		if (link > 0)
			snprintf(share, sizeof(share), "%.3f",
				 r[i].bytes_per_s / link);
		else
			snprintf(share, sizeof(share), "-");
		fprintf(out, "%4zu  0x%016" PRIx64 ":%-3u 0x%016" PRIx64 ":%-3u %12.3f %9g %8s %12.1f  %-6s %s port %u -> %s port %u\n",
			i + 1, r[i].guid, r[i].port, r[i].peer_guid,
			r[i].peer_port, r[i].bytes_per_s * 8 / 1e9,
			link * 8 / 1e9, share, r[i].wait_per_s,
			flags_str(r[i].flags, fl, sizeof(fl)),
			desc(sw->v, r[i].node), r[i].port,
			desc(sw->v, r[i].peer), r[i].peer_port);
	}
}

static char *hex(char *buf, size_t len, uint64_t guid)
{
	snprintf(buf, len, "0x%016" PRIx64, guid);
	return buf;
}

static json_object *jfails(const struct sweep *sw)
{
	json_object *a = json_object_new_array();
	char g[24];
	size_t i;

	for (i = 0; a && i < sw->a->nfail + sw->b->nfail; i++) {
		const struct lf_ctr_fail *e = i < sw->a->nfail ?
			&sw->a->fail[i] : &sw->b->fail[i - sw->a->nfail];
		json_object *o = json_object_new_object();

		if (!o)
			break;
		json_object_object_add(o, "guid", json_object_new_string(
					   hex(g, sizeof(g), e->guid)));
		json_object_object_add(o, "name", json_object_new_string(
					   desc(sw->v, e->node)));
		json_object_object_add(o, "sample", json_object_new_int(
					   i < sw->a->nfail ? 1 : 2));
		json_object_object_add(o, "error", json_object_new_string(
					   strerror(-e->err)));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *jlink(const struct sweep *sw, const struct lf_rate *r)
{
	json_object *o = json_object_new_object(), *fl;
	char g[24];
	double link;
	size_t i;

	if (!o)
		return NULL;
	json_object_object_add(o, "switch", json_object_new_string(
				   desc(sw->v, r->node)));
	json_object_object_add(o, "guid", json_object_new_string(
				   hex(g, sizeof(g), r->guid)));
	json_object_object_add(o, "port", json_object_new_int(r->port));
	json_object_object_add(o, "peer", json_object_new_string(
				   desc(sw->v, r->peer)));
	json_object_object_add(o, "peer_guid", json_object_new_string(
				   hex(g, sizeof(g), r->peer_guid)));
	json_object_object_add(o, "peer_port",
			       json_object_new_int(r->peer_port));
	json_object_object_add(o, "data_bytes",
			       json_object_new_uint64(r->data_bytes));
	json_object_object_add(o, "xmit_wait",
			       json_object_new_uint64(r->wait_ticks));
	json_object_object_add(o, "seconds", json_object_new_double(r->seconds));
	json_object_object_add(o, "bytes_per_s",
			       json_object_new_double(r->bytes_per_s));
	json_object_object_add(o, "xmit_wait_per_s",
			       json_object_new_double(r->wait_per_s));
	fl = json_object_new_array();
	for (i = 0; fl && i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (r->flags & (1u << i))
			json_object_array_add(fl, json_object_new_string(
						  flag_names[i]));
	json_object_object_add(o, "flags", fl);
	link = link_rate(sw, r);
	json_object_object_add(o, "link_bytes_per_s",
			       link > 0 ? json_object_new_double(link) : NULL);
	json_object_object_add(o, "share_of_link",
			       link > 0 ? json_object_new_double(
				       r->bytes_per_s / link) : NULL);
	return o;
}

static int json(FILE *out, const struct sweep *sw, const struct lf_rate *r,
		size_t n)
{
	json_object *o = json_object_new_object(), *links;
	const char *s;
	size_t i;
	int ret = 0;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "source", json_object_new_string(
				   lf_source(sw->v)));
	json_object_object_add(o, "switches",
			       json_object_new_uint64(lf_fabric(sw->v)->nsw));
	json_object_object_add(o, "cas",
			       json_object_new_uint64(lf_fabric(sw->v)->nca));
	json_object_object_add(o, "discover_s", json_object_new_double(
				   lf_stats(sw->v)->discover_seconds));
	json_object_object_add(o, "interval_s",
			       json_object_new_double(sw->interval));
	json_object_object_add(o, "sweep_s",
			       json_object_new_double(sw->b->seconds));
	json_object_object_add(o, "queries",
			       json_object_new_uint64(sw->b->queries));
	json_object_object_add(o, "not_answering", jfails(sw));
	json_object_object_add(o, "link_count",
			       json_object_new_uint64(sw->links));
	links = json_object_new_array();
	for (i = 0; links && i < n; i++)
		json_object_array_add(links, jlink(sw, &r[i]));
	json_object_object_add(o, "links", links);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_SPACED |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!s || fprintf(out, "%s\n", s) < 0)
		ret = s ? -EIO : -ENOMEM;
	json_object_put(o);
	return ret;
}

int pr_counter_rates(struct lf *v, unsigned int ms, struct lf_sample *a,
		     struct lf_sample *b, struct lf_rate **r, size_t *n,
		     double *interval, char *err, size_t len)
{
	double t0 = mono_s();
	int ret;

	if ((ret = lf_read_counters(v, a, err, len)))
		return ret;
	/* Tests wait for this line to change counters between the sweeps. */
	fprintf(stderr, "ibpoolroute: sampled %zu links, again in %u ms\n",
		a->n, ms);
	ret = sleep_ms(ms);
	*interval = mono_s() - t0;
	if (!ret && (ret = lf_read_counters(v, b, err, len)))
		return ret;
	if (!ret)
		ret = lf_counter_delta(a, b, r, n);
	if (ret)
		snprintf(err, len, "%s", strerror(-ret));
	return ret;
}

int pr_counters(const struct pr_opts *o, char *err, size_t len)
{
	struct lf_sample a = { 0 }, b = { 0 };
	struct lf_rate *r = NULL;
	struct sweep sw;
	struct lf *v;
	size_t n = 0;
	int ret, code = PR_ERR;

	if (lf_open(&v, o->ca, o->ca_port, err, len))
		return PR_ERR;
	if (lf_discover(v, err, len))
		goto out;
	sw = (struct sweep){ .v = v, .a = &a, .b = &b };
	if (pr_counter_rates(v, o->interval_ms, &a, &b, &r, &n, &sw.interval,
			     err, len))
		goto out;
	qsort(r, n, sizeof(*r), cmp_busy);
	sw.links = n;
	if (o->top && o->top < n)
		n = o->top;
	ret = 0;
	if (o->json)
		ret = json(stdout, &sw, r, n);
	else
		text(stdout, &sw, r, n);
	if (pr_report_written(ret, err, len))
		goto out;
	code = a.nfail || b.nfail ? PR_BAD : PR_OK;
out:
	free(r);
	lf_sample_release(&b);
	lf_sample_release(&a);
	lf_close(v);
	return code;
}
