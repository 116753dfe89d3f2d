// SPDX-License-Identifier: MIT
/*
 * One request to a JSON-lines socket, the plugin's hint socket or
 * ibpoold's, for the subcommands that talk to one.
 */
#include <stdio.h>

#include "ibpoolroute.h"
#include "sm/client.h"
#include "sm/proto.h"

json_object *pr_request(const char *op)
{
	return pr_with(json_object_new_object(), "op",
		       json_object_new_string(op));
}

json_object *pr_with(json_object *req, const char *key, json_object *v)
{
	if (!req) {
		json_object_put(v);
		return NULL;
	}
	if (sm_json_add(req, key, v)) {
		json_object_put(req);
		return NULL;
	}
	return req;
}

const char *pr_str(json_object *o, const char *key)
{
	json_object *v = json_object_object_get(o, key);

	return v ? json_object_get_string(v) : "-";
}

int pr_call(const struct pr_opts *o, json_object *req, json_object **reply,
	    int ms, char *err, size_t len)
{
	json_object *e;
	int ret;

	*reply = NULL;
	if (!req) {
		snprintf(err, len, "out of memory");
		return PR_ERR;
	}
	ret = sm_call(o->socket, req, reply, ms, err, len);
	json_object_put(req);
	if (ret)
		return PR_ERR;
	if (json_object_get_boolean(json_object_object_get(*reply, "ok")))
		return PR_OK;
	e = json_object_object_get(*reply, "error");
	if (o->json)
		puts(json_object_to_json_string_ext(*reply,
						    JSON_C_TO_STRING_PLAIN));
	else
		snprintf(err, len, "%s: %s", pr_str(e, "code"),
			 pr_str(e, "message"));
	json_object_put(*reply);
	*reply = NULL;
	return PR_BAD;
}
