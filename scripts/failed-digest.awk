# The failed tests of a ctest run, a few lines each, from build/Testing/Temporary/LastTest.log:
# their FAIL lines and the last lines of their output. scripts/test.sh prints it last, where a
# reader of only the end of a long run (a CI page) still sees why each test failed.
#   awk -f scripts/failed-digest.awk build/Testing/Temporary/LastTest.log
function cut(line) { return length(line) > 240 ? substr(line, 1, 240) " ..." : line }
/^[0-9]+\/[0-9]+ Testing: / { name = $3; n = 0; in_output = 0; next }
/^Output:$/ { getline; in_output = 1; next }  # the line after it is a rule
/^<end of output>$/ { in_output = 0; next }
in_output { out[++n] = $0; next }
/^Test Failed|^Test Timeout|^Test Not Run|^Test Exception/ {
  print "--- " name " (" $0 ")"
  shown = 0
  for (i = 1; i <= n && shown < 3; i++)
    if (out[i] ~ /FAIL|Error|error:|Timeout|timed out/) { print "  " cut(out[i]); shown++ }
  first = n - 1 < 1 ? 1 : n - 1
  print "  last lines:"
  for (i = first; i <= n; i++) print "  " cut(out[i])
}
