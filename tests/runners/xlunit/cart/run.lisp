;;; The cart's tests under xlunit, run as `sbcl --non-interactive --no-userinit --load run.lisp`.
(require :asdf)
(asdf:load-system :xlunit)
(defpackage :cart-tests (:use :cl :xlunit))
(in-package :cart-tests)

(defun total (items) (reduce #'+ items :key #'cdr))
(defun discount (amount percent) (- amount (floor (* amount percent) 100)))
(defun label (sku) (format nil "SKU-~a" sku))

(defclass cart-test (test-case) ())

(def-test-method test-total ((test cart-test) :run nil)
  (assert-equal 7 (total '((a . 2) (b . 4)))))
(def-test-method test-empty-total ((test cart-test) :run nil)
  (assert-equal 0 (total '())))
(def-test-method test-discount ((test cart-test) :run nil)
  (assert-equal 90 (discount 100 10)))
(def-test-method test-half-off ((test cart-test) :run nil)
  (assert-equal 45 (discount 99 50) "rounds down"))
(def-test-method test-label ((test cart-test) :run nil)
  (assert-true (string= "sku-42" (label 42)) "labels are lower case"))
(def-test-method test-missing-price ((test cart-test) :run nil)
  (assert-equal 0 (total '((a . nil)))))

(let ((result (textui-test-run (get-suite cart-test))))
  (sb-ext:exit :code (if (was-successful result) 0 1)))
