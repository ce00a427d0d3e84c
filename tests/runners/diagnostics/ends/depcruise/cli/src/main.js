require('./commands/build');
