-- Status webhooks, registration only (issue 27, API.md "Status webhooks"): one endpoint per tenant. The registration is
-- current state, read by the API and (later) by every delivery, so it is one row per tenant, updated in place; its
-- history is the append-only webhook_changes below, written in the same transaction, as the suppression list's is.
--
-- The signing secrets are stored so that they can sign (HMAC needs the secret itself, a hash would not do), encrypted
-- with AES-256-GCM under webhooks.secretKey: a 12-byte random nonce followed by the ciphertext and its tag, with the
-- tenant as associated data, so a copied value does not open in another tenant's row. previous_secret is the one a
-- rotation replaced: it still signs until previous_until (24 h after the rotation); both are set or neither.
CREATE TABLE webhooks (
    tenant          varchar   NOT NULL,
    url             varchar   NOT NULL,
    events          varchar[] NOT NULL,
    secret          bytea     NOT NULL,
    previous_secret bytea,
    previous_until  timestamp with time zone,
    created_at      timestamp with time zone NOT NULL,
    updated_at      timestamp with time zone NOT NULL,
    CONSTRAINT webhooks_pk PRIMARY KEY (tenant),
    CONSTRAINT webhooks_previous CHECK ((previous_secret IS NULL) = (previous_until IS NULL))
);

-- Every change of a registration: who (the key's actor), when and what, never a secret (a ROTATED row says that the
-- secret changed, not to what). Nothing is updated or deleted here; support reads a tenant's history by its index.
CREATE TABLE webhook_changes (
    id     bigint    NOT NULL GENERATED ALWAYS AS IDENTITY,
    tenant varchar   NOT NULL,
    action varchar   NOT NULL,
    url    varchar,
    events varchar[],
    actor  varchar   NOT NULL,
    at     timestamp with time zone NOT NULL,
    CONSTRAINT webhook_changes_pk PRIMARY KEY (id),
    CONSTRAINT webhook_changes_action CHECK (action IN ('REGISTERED', 'CHANGED', 'ROTATED', 'DELETED'))
);
CREATE INDEX webhook_changes_by_tenant ON webhook_changes (tenant, id);
