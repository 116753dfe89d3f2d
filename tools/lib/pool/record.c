// SPDX-License-Identifier: MIT
/*
 * The pool's records in JSON, one shape for journal, snapshot and
 * replay: allocations and queued requests out, queued requests and
 * checked fields in; and the release of what they own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "record.h"
#include "topology/textio.h"

void prec_queued_release(struct pool_queued *q)
{
	free(q->client);
	free(q->job);
	free(q->cls);
	free(q->group);
	free(q->name);
}

void prec_alloc_release(struct pool_alloc *a)
{
	unsigned int k;

	for (k = 0; k < a->nlost; k++)
		free(a->lost[k].host);
	free(a->lost);
	free(a->client);
	free(a->job);
	free(a->gpus);
	if (a->req)
		prec_queued_release(a->req);
	free(a->req);
}

void prec_job_release(struct pool_job *jb)
{
	size_t i;

	for (i = 0; i < jb->nhosts; i++)
		free(jb->hosts[i]);
	free(jb->hosts);
	free(jb->id);
}

struct json_object *prec_queued_json(const struct pool_queued *q)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "ticket", json_object_new_uint64(q->ticket));
	json_object_object_add(o, "uid", json_object_new_int64(q->uid));
	json_object_object_add(o, "client", json_object_new_string(q->client));
	json_object_object_add(o, "job", json_object_new_string(q->job));
	json_object_object_add(o, "class", json_object_new_string(q->cls));
	json_object_object_add(o, "group", json_object_new_string(q->group));
	json_object_object_add(o, "name", json_object_new_string(q->name));
	json_object_object_add(o, "gpus", json_object_new_int64(q->ngpus));
	/* absent when 0: records from before shares read the same */
	if (q->milli)
		json_object_object_add(o, "milli", json_object_new_int(q->milli));
	if (q->rdma)
		json_object_object_add(o, "rdma", json_object_new_int(q->rdma));
	json_object_object_add(o, "hosts", json_object_new_int64(q->hosts));
	json_object_object_add(o, "per_host",
			       json_object_new_int64(q->per_host));
	json_object_object_add(o, "lease_s", json_object_new_int64(q->lease_s));
	json_object_object_add(o, "limit_s", json_object_new_int64(q->limit_s));
	json_object_object_add(o, "submit", json_object_new_int64(q->submit));
	return o;
}

/* {"host": ..., "gpu": ...} of an orphaned GPU, or NULL. */
struct json_object *prec_lost_json(const struct pool_lost_gpu *l)
{
	struct json_object *x = json_object_new_object();

	if (x) {
		json_object_object_add(x, "host",
				       json_object_new_string(l->host));
		json_object_object_add(x, "gpu", json_object_new_int(l->gpu));
	}
	return x;
}

/* GPU (or, for an HCA alone, port) r as a record names it, or NULL. */
static struct json_object *ref_json(const struct pool_config *cfg,
				    const struct pool_gpu_ref *r, bool port)
{
	const struct pool_host_cfg *hc = &cfg->hosts[r->host];
	struct json_object *x = json_object_new_object();
	char guid[24];

	if (!x)
		return NULL;
	json_object_object_add(x, "host", json_object_new_string(hc->name));
	if (!port)
		json_object_object_add(x, "gpu", json_object_new_int(r->gpu));
	if (r->milli)
		json_object_object_add(x, "milli", json_object_new_int(r->milli));
	json_object_object_add(x, "rail", json_object_new_int(r->rail));
	if (hc->hca[r->rail].guid) {
		snprintf(guid, sizeof(guid), "0x%016" PRIx64,
			 hc->hca[r->rail].guid);
		json_object_object_add(x, "port_guid",
				       json_object_new_string(guid));
	}
	json_object_object_add(x, "dlid", json_object_new_int64(r->dlid));
	return x;
}

struct json_object *prec_alloc_json(const struct pool_config *cfg,
				    const struct pool_alloc *a)
{
	struct json_object *o = json_object_new_object(), *g, *x;
	unsigned int k;

	g = json_object_new_array();
	if (!o || !g)
		goto out_put;
	json_object_object_add(o, "id", json_object_new_uint64(a->id));
	json_object_object_add(o, "uid", json_object_new_int64(a->uid));
	json_object_object_add(o, "client", json_object_new_string(a->client));
	if (*a->job)
		json_object_object_add(o, "job", json_object_new_string(a->job));
	json_object_object_add(o, "expires", json_object_new_int64(a->expires));
	if (a->req)
		json_object_object_add(o, "req", prec_queued_json(a->req));
	if (a->rdma)
		json_object_object_add(o, "rdma", json_object_new_int(a->rdma));
	if (a->has_port)
		json_object_object_add(o, "port", ref_json(cfg, &a->port, true));
	json_object_object_add(o, "gpus", g);
	for (k = 0; k < a->ngpus; k++) {
		x = ref_json(cfg, &a->gpus[k], false);
		if (!x || json_object_array_add(g, x)) {
			json_object_put(x);
			goto out_put;
		}
	}
	for (k = 0; k < a->nlost; k++) {
		x = prec_lost_json(&a->lost[k]);
		if (!x || json_object_array_add(g, x)) {
			json_object_put(x);
			goto out_put;
		}
		json_object_object_add(x, "rail",
				       json_object_new_int(a->lost[k].rail));
		json_object_object_add(x, "dlid",
				       json_object_new_int64(a->lost[k].dlid));
	}
	return o;
out_put:
	json_object_put(o);
	if (!o)
		json_object_put(g);
	return NULL;
}

bool prec_get_int(struct json_object *o, const char *k, int64_t lo,
		  int64_t hi, int64_t *v)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, k, &x) ||
	    !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_int64(x);
	return *v >= lo && *v <= hi;
}

/* Optional k: 0 when absent, else as prec_get_int(). */
bool prec_opt_int(struct json_object *o, const char *k, int64_t lo,
		  int64_t hi, int64_t *v)
{
	*v = 0;
	return !json_object_object_get_ex(o, k, NULL) ||
	       prec_get_int(o, k, lo, hi, v);
}

const char *prec_get_str(struct json_object *o, const char *k)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, k, &x) ||
	    !json_object_is_type(x, json_type_string))
		return NULL;
	return json_object_get_string(x);
}

/* A queued request's fields from o into q (strings owned). */
int prec_take_queued(struct json_object *o, struct pool_queued *q,
		     char *err, size_t len)
{
	const char *c = prec_get_str(o, "client"), *j = prec_get_str(o, "job"),
		   *k = prec_get_str(o, "class"), *g = prec_get_str(o, "group"),
		   *n = prec_get_str(o, "name");
	int64_t t, uid, gpus, hosts, per, lease, limit, sub, milli, rdma;

	memset(q, 0, sizeof(*q));
	if (!prec_get_int(o, "ticket", 1, INT64_MAX, &t) ||
	    !prec_get_int(o, "uid", 0, UINT32_MAX, &uid) ||
	    !prec_get_int(o, "gpus", 0, UINT32_MAX, &gpus) ||
	    !prec_opt_int(o, "milli", 1, POOL_MILLI - 1, &milli) ||
	    !prec_opt_int(o, "rdma", 1, POOL_RDMA_CAP, &rdma) ||
	    !prec_get_int(o, "hosts", 0, UINT32_MAX, &hosts) ||
	    !prec_get_int(o, "per_host", 0, UINT32_MAX, &per) ||
	    !prec_get_int(o, "lease_s", 0, POOL_CFG_LEASE_MAX, &lease) ||
	    !prec_get_int(o, "limit_s", 0, UINT32_MAX, &limit) ||
	    !prec_get_int(o, "submit", INT64_MIN, INT64_MAX, &sub) || !c || !j ||
	    !k || !g || !n || (!gpus && !rdma) || (milli && gpus != 1))
		return tio_err(err, len, -EINVAL, "malformed queued request");
	*q = (struct pool_queued){ .ticket = t, .uid = uid, .ngpus = gpus,
		.milli = milli, .rdma = rdma, .hosts = hosts, .per_host = per, .lease_s = lease,
		.limit_s = limit, .submit = sub };
	q->client = strdup(c);
	q->job = strdup(j);
	q->cls = strdup(k);
	q->group = strdup(g);
	q->name = strdup(n);
	if (q->client && q->job && q->cls && q->group && q->name)
		return 0;
	prec_queued_release(q);
	return tio_err(err, len, -ENOMEM, "out of memory");
}
