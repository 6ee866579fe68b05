/*
 * exp_ast.h -- parsing an EXP 2.0 file into its plain syntax tree, whose
 * types (struct exp_file, struct exp_node, ...) are in network/exp_tree.h,
 * the input of the network transforms.  Meaning (matching, flattening,
 * label sets) lives in network/.
 *
 * Ownership: an exp_file owns its whole tree; exp_file_free releases it.
 */
#ifndef WX_EXP_AST_H
#define WX_EXP_AST_H

#include <stddef.h>

#include "../network/exp_tree.h"
#include "../util/error.h"

/* Parses an EXP file / string into a tree.  Errors: WX_EINPUT with
 * file:line:col, also for the constructs refused with a reason
 * (docs/formats.md).  Never crashes on any input. */
int exp_parse_file(const char *path, struct exp_file **out, struct wx_error *err);
int exp_parse_string(const char *text, size_t len, const char *name,
                     struct exp_file **out, struct wx_error *err);
void exp_file_free(struct exp_file *f);
/* Frees a node and everything below it (trees built by hand included). */
void exp_node_free(struct exp_node *n);

#endif
