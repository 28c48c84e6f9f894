"""What the tests, the benches and the demo share: the procedural sketch generator (`sketchgen`), the tiny policy
(`tiny_policy`), child processes started and waited on until they answer (`processes`), the local stack of services
(`stack`), an HTTP server on loopback that answers from a script (`scripted_http`), and a bench's JSON record
(`record`). It imports no part but shared."""
