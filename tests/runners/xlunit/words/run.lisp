;;; A word counter's tests under xlunit, run as `sbcl --non-interactive --no-userinit --load run.lisp`.
(require :asdf)
(asdf:load-system :xlunit)
(defpackage :words-tests (:use :cl :xlunit))
(in-package :words-tests)

(defun words (text)
  (loop with start = 0
        for space = (position #\Space text :start start)
        collect (subseq text start space)
        while space do (setf start (1+ space))))
(defun longest (text) (reduce (lambda (a b) (if (> (length b) (length a)) b a)) (words text)))

(defclass words-test (test-case) ())

(def-test-method test-split ((test words-test) :run nil)
  (assert-equal '("a" "b") (words "a b")))
(def-test-method test-double-space ((test words-test) :run nil)
  (assert-equal '("a" "b") (words "a  b") "empty words are dropped"))
(def-test-method test-longest ((test words-test) :run nil)
  (assert-equal "three" (longest "one three two")))
(def-test-method test-longest-empty ((test words-test) :run nil)
  (assert-equal nil (longest "")))
(def-test-method test-count ((test words-test) :run nil)
  (assert-eql 3 (length (words "a b c "))))
(def-test-method test-upcase ((test words-test) :run nil)
  (assert-true (every #'upper-case-p (string-upcase "abc1")) "every letter is upper case"))
(def-test-method test-not-a-string ((test words-test) :run nil)
  (assert-equal nil (words 42)))

(let ((result (textui-test-run (get-suite words-test))))
  (sb-ext:exit :code (if (was-successful result) 0 1)))
