;;; A clock's tests under ptester, run as `sbcl --non-interactive --no-userinit --load run.lisp`.
(require :asdf)
(asdf:load-system :ptester)
(defpackage :clock-tests (:use :cl :ptester))
(in-package :clock-tests)

(defun minutes (h m) (+ (* h 60) m))
(defun hhmm (minutes) (format nil "~2,'0d:~2,'0d" (floor minutes 60) (mod minutes 60)))
(defun add-minutes (a b) (mod (+ a b) 1440))
(defun parse-hhmm (s) (minutes (parse-integer s :end 2) (parse-integer s :start 3)))

(with-tests (:name "clock")
  (test 90 (minutes 1 30))
  (test "09:05" (hhmm 545) :test #'string=)
  (test 30 (add-minutes 1430 40))
  (test 605 (parse-hhmm "10:05"))
  (test 1439 (parse-hhmm "24:00"))
  (test-error (parse-hhmm "ab:cd") :condition-type 'type-error)
  (test "00:00" (hhmm 1440) :test #'string=))

(with-tests (:name "alarms")
  (test '(420 450 480) (sort (list (minutes 8 0) (minutes 7 0) (minutes 7 30)) #'>) :test #'equal))
(sb-ext:exit :code 0)
