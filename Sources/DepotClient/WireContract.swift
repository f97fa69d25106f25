// The request and answer bodies the client sends and reads are the server's own (`DepotAPI`): an app that
// imports DepotClient sees them as part of it.
@_exported import DepotAPI
