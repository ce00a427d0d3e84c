%union { int i; char *s; }
%token <i> NUM
%%
neg : '-' NUM { $$ = -$2; }
    ;
%%
