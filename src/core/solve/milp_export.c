/*
 * milp_export.c — full mode's MILP written out for an independent solver.
 *
 * The bound full mode reports is only as good as GLPK's search; a solver
 * that proves a tighter bound on the same model checks it from outside
 * (make bench-solver runs CBC on these files when it is installed).  The
 * file is the model full mode solves, columns, rows and bounds alike, in
 * free MPS.  MPS carries no objective sense and readers differ on an
 * objective constant, so the file minimises the negated objective without
 * its constant, which is returned instead.
 */
#include "solve/glpk_guard.h"
#include "solve/milp_internal.h"

#include <glpk.h>
#include <stdlib.h>

typedef struct export_arg
{
	const milp_model *model;
	const char *path;
	glp_prob  **lp;
	bool		write_failed;
} export_arg;

static ga_status
write_body(void *arg)
{
	export_arg *a = arg;
	const milp_model *m = a->model;

	*a->lp = glp_create_prob();
	milp_load_glpk(*a->lp, m);
	a->write_failed = !milp_write_negated_mps(*a->lp, a->path);
	return GA_OK;
}

/*
 * GLPK writes a column with no coefficient at all, in any row or the
 * objective, as a line ending in "$ empty column", which other readers
 * (CBC) refuse as a bad line.  Such a column (the churn of a service at a
 * step with nothing before it, say) changes neither the optimum nor any
 * row, so the file leaves it out.  False when out of memory.
 */
static bool
drop_empty_columns(glp_prob *lp)
{
	int			n = glp_get_num_cols(lp);
	int		   *list = malloc(sizeof(int) * ((size_t) n + 1));
	int			k = 0;

	if (list == NULL)
		return false;
	for (int j = 1; j <= n; j++)
		if (glp_get_mat_col(lp, j, NULL, NULL) == 0 && glp_get_obj_coef(lp, j) == 0)
			list[++k] = j;
	if (k > 0 && k < n)
		glp_del_cols(lp, k, list);
	free(list);
	return true;
}

bool
milp_write_negated_mps(glp_prob *lp, const char *path)
{
	glp_set_obj_dir(lp, GLP_MIN);
	glp_set_obj_coef(lp, 0, 0);
	for (int j = 1; j <= glp_get_num_cols(lp); j++)
		glp_set_obj_coef(lp, j, -glp_get_obj_coef(lp, j));
	return drop_empty_columns(lp) && glp_write_mps(lp, GLP_MPS_FILE, NULL, path) == 0;
}

ga_status
ga_milp_write_mps(const ga_problem *problem, bool protect_rule, const char *path,
				  double *constant, ga_error *err)
{
	milp_model	model = {0};
	glp_prob   *lp = NULL;
	export_arg	arg = {&model, path, &lp, false};
	char		message[GA_ERROR_MESSAGE_LEN] = "";
	bool		glpk_failed = false;
	ga_status	rc;

	if (problem == NULL || path == NULL || constant == NULL)
		return ga_error_set(err, GA_EINVAL, "problem, path and constant are required");
	rc = protect_rule ? milp_model_build_protected(&model, problem, err)
		: milp_model_build(&model, problem, err);
	if (rc == GA_OK)
	{
		rc = ga_glpk_guarded(&lp, message, sizeof(message), write_body, &arg, &glpk_failed);
		if (glpk_failed)
			rc = ga_error_set(err, GA_ESOLVER, "GLPK failed: %s", message[0] ? message : "internal error");
		else if (arg.write_failed)
			rc = ga_error_set(err, GA_EINVAL, "path: cannot write the model to %s", path);
		*constant = model.constant;
	}
	milp_model_free(&model);
	return rc;
}
