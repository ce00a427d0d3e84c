%token NAME
%%
sect : '[' NAME ']' {
     ;
%%
