/*jslint node*/
"use strict";

let notes = [];

function addNote(text) {
    notes.push({text: text, at: Date.now()})
    return notes.length;
}

module.exports = addNote;
