;;; A bookshelf's tests under ptester, run as `sbcl --non-interactive --no-userinit --load run.lisp`.
(require :asdf)
(asdf:load-system :ptester)
(defpackage :shelf-tests (:use :cl :ptester))
(in-package :shelf-tests)

(defun title-key (title) (string-downcase (remove #\Space title)))
(defun shelf-count (books) (length (remove-duplicates books :test #'string=)))
(defun parse-isbn (s) (parse-integer (remove #\- s)))
(defun spine (title author) (format nil "~a / ~a" author title))

(with-tests (:name "shelf")
  (test "thehobbit" (title-key "The Hobbit") :test #'string=)
  (test 3 (shelf-count '("a" "b" "a" "c" "d")))
  (test 9780261103344 (parse-isbn "978-0-261-10334-4"))
  (test "Tolkien: The Hobbit" (spine "The Hobbit" "Tolkien") :test #'string=)
  (test-error (parse-isbn "no-number") :condition-type 'type-error)
  (test 2 (values 2 :extra)))

(with-tests (:name "loans")
  (test 4 (length (remove-duplicates (mapcar #'title-key '("Dune" "dune" "Emma" "The Left Hand of Darkness"))
                                     :test #'string=)))
  (test 1 (shelf-count '("x"))))
(sb-ext:exit :code 0)
