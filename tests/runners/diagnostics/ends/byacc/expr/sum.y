%token NUM
%%
sum : sum '+' NUM { $$ = $1 + $5; }
    | NUM
    ;
%%
