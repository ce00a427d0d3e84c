%token KEY VAL
%%
pair : KEY '=' VAL { $$ = $3; }
     | KEY { $$ = $1 }
     | KEY ':' VAL { $$ = $4; }
     ;
%%
