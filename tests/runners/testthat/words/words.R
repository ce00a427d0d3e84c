title_case <- function(x) paste0(toupper(substr(x, 1, 1)), substr(x, 2, nchar(x)))
count_words <- function(x) length(strsplit(x, " ")[[1]])
