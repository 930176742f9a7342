-- Status webhook deliveries carry what their body tells of a receipt (issue 27): the provider's status word and error
-- code of the event, copied when the delivery is owed (in the statement that appends the event), so that a delivery
-- reads one row, not the message's history. Null for events that are not receipts, and for deliveries owed before.
ALTER TABLE webhook_deliveries ADD COLUMN provider_status varchar, ADD COLUMN error_code varchar;
