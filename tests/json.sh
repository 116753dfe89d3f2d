# SPDX-License-Identifier: MIT
# json FILE EXPR: the Perl expression EXPR over $r, the JSON object in
# FILE (JSON::PP, in perl-base's company everywhere perl is).  The pool
# daemon's offline and ibsim tests source this.
json() {
	perl -MJSON::PP -e '
		local $/; open(my $f, "<", $ARGV[0]) or die "$ARGV[0]: $!";
		my $r = decode_json(<$f>); my $v = eval $ARGV[1];
		die $@ if $@; print "$v\n";' "$1" "$2"
}
