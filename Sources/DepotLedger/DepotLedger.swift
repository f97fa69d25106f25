/// The ledger of transactions and deliveries; the SQLite and PostgreSQL engines arrive with the ledger work.
package enum DepotLedger {}
