%token NUM
%tokn STAR
%%
prod : NUM ;
%%
