-- Routes and failover (issue 29): true when the message's gateway was chosen by a route with more than one gateway, so
-- a gateway that certainly did not take it may pass it to the next one of that route; null when the client named the
-- gateway, the default gateway took it, or its route had one gateway (nothing to fail over to). The gateway it is at
-- now is the message row's, or the last failover's (a REDRIVEN row with reason FAILED_OVER names it).
-- A nullable column without a default is a catalog change only, and null costs no byte in a row with a null bitmap.
ALTER TABLE messages ADD COLUMN routed boolean;
