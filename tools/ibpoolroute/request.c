// SPDX-License-Identifier: MIT
/*
 * One request to a JSON-lines socket, the plugin's hint socket or
 * ibpoold's, for the subcommands that talk to one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

void pr_print_error(const char *code, const char *msg, const char *hint)
{
	json_object *r = json_object_new_object(), *e = json_object_new_object();

	if (!r || !e ||
	    json_object_object_add(r, "ok", json_object_new_boolean(false)) ||
	    json_object_object_add(r, "error", e)) {
		json_object_put(e);
		json_object_put(r);
		fputs("{\"ok\":false,\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}\n",
		      stdout);
		return;
	}
	json_object_object_add(e, "code", json_object_new_string(code));
	json_object_object_add(e, "message", json_object_new_string(msg));
	if (hint)
		json_object_object_add(e, "hint", json_object_new_string(hint));
	puts(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN));
	json_object_put(r);
}

/* sm_call()'s failure ret as a code for --json. */
static const char *fail_code(int ret)
{
	switch (ret) {
	case -ETIMEDOUT:
		return "timeout";
	case -ECONNRESET:
	case -EPIPE:
		return "closed";
	case -EPROTO:
	case -EMSGSIZE:
		return "bad_reply";
	case -ENOMEM:
		return "internal";
	default:
		return "unreachable";
	}
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
	ret = sm_call_as(o->socket, o->munge, req, reply, ms, err, len);
	json_object_put(req);
	if (ret) {
		o->fail->code = fail_code(ret);
		o->fail->hint = cli_socket_hint(-ret, o->peer,
						!strncmp(o->socket, SM_TCP_PREFIX,
							 strlen(SM_TCP_PREFIX)));
		return PR_ERR;
	}
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
