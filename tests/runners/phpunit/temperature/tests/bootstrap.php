<?php
require __DIR__ . "/../src/Temperature.php";
