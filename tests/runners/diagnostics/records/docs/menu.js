const menu = [ 'a','b' ]
