package redact_test

import (
	"fmt"

	"github.com/retrace-dev/retrace/internal/redact"
)

func ExampleRedactor_String() {
	// A fixed key makes the masks reproducible; without one, New draws a
	// random key and masks change from run to run.
	r := redact.New(redact.Options{Hosts: true, Key: []byte("example key")})
	fmt.Println(r.String("export PGPASSWORD=hunter2"))
	fmt.Println(r.String("psql postgres://deploy:hunter2@10.0.4.17/app"))
	fmt.Println(r.String("cd /home/alice && mysql -u root --password 'hunter2'"))
	// Output:
	// export PGPASSWORD=[secret:password:3ae5]
	// psql postgres://deploy:[secret:url-password:3ae5]@[host:21f2]/app
	// cd /home/[user:b83c] && mysql -u root --password '[secret:password:3ae5]'
}
