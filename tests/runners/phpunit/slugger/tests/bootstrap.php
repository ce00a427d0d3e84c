<?php
require __DIR__ . "/../src/Slugger.php";
