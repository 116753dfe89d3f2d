// SPDX-License-Identifier: MIT
/*
 * --jobs FILE: the hint socket's job list, {"jobs":[{"id":..,"hosts":[..],
 * "weight":..}]}, read with json-c into a job set for the fabric.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ibpoolroute.h"

/* One job object into sp; strings stay owned by the JSON tree. */
static int spec_of(json_object *jo, size_t i, struct rt_job_spec *sp,
		   const char **hosts, char *err, size_t len)
{
	json_object *id, *hl, *w;
	size_t k;

	if (!json_object_is_type(jo, json_type_object)) {
		snprintf(err, len, "jobs[%zu]: not an object", i);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(jo, "id", &id) ||
	    !json_object_is_type(id, json_type_string)) {
		snprintf(err, len, "jobs[%zu]: \"id\" missing or not a string", i);
		return -EINVAL;
	}
	sp->id = json_object_get_string(id);
	if (!json_object_object_get_ex(jo, "hosts", &hl) ||
	    !json_object_is_type(hl, json_type_array)) {
		snprintf(err, len, "job '%s': \"hosts\" missing or not an array",
			 sp->id);
		return -EINVAL;
	}
	sp->weight = 1;
	if (json_object_object_get_ex(jo, "weight", &w)) {
		int64_t v = json_object_get_int64(w);

		if (!json_object_is_type(w, json_type_int) || v < 1 ||
		    v > RT_JOB_WEIGHT_MAX) {
			snprintf(err, len, "job '%s': \"weight\" must be an integer 1-%u",
				 sp->id, RT_JOB_WEIGHT_MAX);
			return -EINVAL;
		}
		sp->weight = v;
	}
	sp->nhosts = json_object_array_length(hl);
	sp->hosts = hosts;
	for (k = 0; k < sp->nhosts; k++) {
		json_object *h = json_object_array_get_idx(hl, k);

		if (!json_object_is_type(h, json_type_string)) {
			snprintf(err, len, "job '%s': hosts[%zu] is not a string",
				 sp->id, k);
			return -EINVAL;
		}
		hosts[k] = json_object_get_string(h);
	}
	return 0;
}

/* Every job's specs, with one array of host strings behind them all. */
static int specs_of(json_object *list, struct rt_job_spec **spec,
		    const char ***hosts, char *err, size_t len)
{
	size_t n = json_object_array_length(list), i, total = 0;
	int ret = 0;

	for (i = 0; i < n; i++) {
		json_object *hl, *jo = json_object_array_get_idx(list, i);

		if (json_object_object_get_ex(jo, "hosts", &hl) &&
		    json_object_is_type(hl, json_type_array))
			total += json_object_array_length(hl);
	}
	*spec = calloc(n ? n : 1, sizeof(**spec));
	*hosts = calloc(total ? total : 1, sizeof(**hosts));
	if (!*spec || !*hosts) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	for (i = 0, total = 0; !ret && i < n; i++) {
		ret = spec_of(json_object_array_get_idx(list, i), i,
			      &(*spec)[i], *hosts + total, err, len);
		total += (*spec)[i].nhosts;
	}
	return ret;
}

/* A job whose every host an earlier job holds: the user is told. */
static void left_out(void *ctx, const char *msg)
{
	fprintf(stderr, "ibpoolroute: %s: %s\n", (const char *)ctx, msg);
}

int pr_jobs_load(const char *path, const struct fabric *f,
		 struct rt_jobs *js, char *err, size_t len)
{
	struct rt_job_spec *spec = NULL;
	const char **hosts = NULL;
	json_object *root, *list;
	char msg[400];
	int ret = -EINVAL;

	root = json_object_from_file(path);
	if (!root) {
		snprintf(err, len, "%s: %s", path, json_util_get_last_err());
		err[strcspn(err, "\n")] = '\0';
		return -EINVAL;
	}
	if (!json_object_object_get_ex(root, "jobs", &list) ||
	    !json_object_is_type(list, json_type_array)) {
		snprintf(err, len, "%s: \"jobs\" missing or not an array", path);
		goto out;
	}
	ret = specs_of(list, &spec, &hosts, msg, sizeof(msg));
	if (!ret)
		ret = rt_jobs_build_drop(js, f, spec,
					 json_object_array_length(list),
					 left_out, (void *)path, msg,
					 sizeof(msg));
	if (ret)
		snprintf(err, len, "%s: %s", path, msg);
out:
	free(spec);
	free(hosts);
	json_object_put(root);
	return ret;
}
