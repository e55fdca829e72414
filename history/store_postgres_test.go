//go:build clapper_store_postgres

package history

// Built with this tag, the store tests run on PostgreSQL unless -store
// says otherwise: make mutate's second pass over this package, whose
// runner cannot pass the test binary its flags.
func init() { defaultBackend = "postgres" }
