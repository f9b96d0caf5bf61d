/*
 * glpk_guard.c — the guard of glpk_guard.h.
 */
#include "solve/glpk_guard.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

typedef struct glpk_guard
{
	jmp_buf		on_error;
	char	   *message;
	size_t		message_size;
} glpk_guard;

/* Keep GLPK silent; remember its last line for error messages. */
static int
capture_terminal(void *info, const char *s)
{
	glpk_guard *g = info;
	size_t		len = strlen(s);

	if (len > 1 || (len == 1 && s[0] != '\n'))
	{
		snprintf(g->message, g->message_size, "%s", s);
		len = strlen(g->message);
		while (len > 0 && g->message[len - 1] == '\n')
			g->message[--len] = '\0';
	}
	return 1;
}

/*
 * GLPK calls this on an internal error instead of abort().  Its state is
 * then unusable: release all of it and return to ga_glpk_guarded.
 */
static void
on_glpk_error(void *info)
{
	glpk_guard *g = info;

	glp_free_env();
	longjmp(g->on_error, 1);
}

ga_status
ga_glpk_guarded(glp_prob **lp, char *message, size_t message_size,
				ga_status (*body) (void *arg), void *arg, bool *glpk_failed)
{
	glpk_guard	g;
	ga_status	rc;

	g.message = message;
	g.message_size = message_size;
	*lp = NULL;
	message[0] = '\0';
	*glpk_failed = false;
	if (setjmp(g.on_error) != 0)
	{
		/* the hook has already released every GLPK object */
		*lp = NULL;
		*glpk_failed = true;
		return GA_ESOLVER;
	}
	glp_term_hook(capture_terminal, &g);
	glp_error_hook(on_glpk_error, &g);
	rc = body(arg);
	if (*lp != NULL)
		glp_delete_prob(*lp);
	*lp = NULL;
	glp_error_hook(NULL, NULL);
	glp_term_hook(NULL, NULL);
	glp_free_env();
	return rc;
}

ga_status
ga_glpk_solve_guarded(glp_prob **lp, char *message, size_t message_size,
					  ga_status (*body) (void *arg), void *arg,
					  const char *what, ga_error *err)
{
	bool		glpk_failed;
	ga_status	rc = ga_glpk_guarded(lp, message, message_size, body, arg, &glpk_failed);

	if (glpk_failed)
		return ga_error_set(err, GA_ESOLVER, "GLPK failed: %s",
							message[0] ? message : "internal error");
	if (rc == GA_ECANCEL)
		return ga_error_set(err, GA_ECANCEL, "the solve was cancelled");
	if (rc != GA_OK)
		return ga_error_set(err, rc, "out of memory in %s", what);
	return GA_OK;
}
