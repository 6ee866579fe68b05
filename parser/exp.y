/* Placeholder grammar: replaced by the real EXP 2.0 grammar. */
%define api.pure full
%code requires { struct exp_file; }
%parse-param { struct exp_file **out }
%code { static int yylex(void *lval) { (void)lval; return 0; }
        static void yyerror(struct exp_file **out, const char *m) { (void)out; (void)m; } }
%token END_OF_FILE
%%
file: %empty ;
%%
