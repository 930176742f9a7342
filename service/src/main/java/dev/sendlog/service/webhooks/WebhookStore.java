package dev.sendlog.service.webhooks;

import static dev.sendlog.schema.jooq.Tables.API_KEYS;
import static dev.sendlog.schema.jooq.Tables.WEBHOOKS;
import static dev.sendlog.schema.jooq.Tables.WEBHOOK_CHANGES;

import dev.sendlog.schema.jooq.tables.WebhookChanges;
import dev.sendlog.schema.jooq.tables.Webhooks;
import dev.sendlog.schema.jooq.tables.records.WebhooksRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;

/**
 * Each tenant's webhook registration (API.md, "Status webhooks"): one row in {@code webhooks}, and every change in the
 * append-only {@code webhook_changes}, in the same transaction. Secrets are generated here, stored sealed by
 * {@link SecretBox} and handed out only as the answer to the call that made them; the history never holds one.
 */
public final class WebhookStore {
    /** How long a rotated-out secret still signs (API.md: both verify for 24 h). */
    public static final Duration PREVIOUS_SECRET_VALIDITY = Duration.ofHours(24);

    public static final String REGISTERED = "REGISTERED";
    public static final String CHANGED = "CHANGED";
    public static final String ROTATED = "ROTATED";
    public static final String DELETED = "DELETED";
    /** How often a PUT tries again when the row its insert ran into was deleted before it could lock it. */
    static final int PUT_ATTEMPTS = 5;

    private static final Webhooks W = WEBHOOKS;
    private static final WebhookChanges C = WEBHOOK_CHANGES;

    /** A registration as shown: never a secret. {@code previousUntil} is when the rotated-out secret stops signing, if any. */
    public record Registration(
            String tenant,
            String url,
            List<String> events,
            Instant createdAt,
            Instant updatedAt,
            Instant previousUntil) {}

    /**
     * What a PUT did: the registration now, the secret when this call created the registration (null otherwise: a
     * change keeps the secret, and it is not shown again), and whether anything was written.
     */
    public record Saved(Registration registration, WebhookSecret newSecret, boolean written) {}

    /** What a rotation did: the registration now and the new secret, shown once. */
    public record Rotated(Registration registration, WebhookSecret secret) {}

    private final DSLContext dsl;
    private final SecretBox box;
    private final InstantSource clock;

    public WebhookStore(DSLContext dsl, SecretBox box, InstantSource clock) {
        this.dsl = dsl;
        this.box = box;
        this.clock = clock;
    }

    /**
     * Registers {@code url} and {@code events} for {@code tenant}, or changes them. A first registration generates the
     * secret; a change keeps it (a PUT never rotates: rotating is its own call, so a client fixing a typo in its URL does
     * not lose the secret its receiver checks). The same url and events again write nothing.
     */
    public Saved put(String tenant, String url, List<String> events, String actor) {
        return dsl.transactionResult(cfg -> {
            DSLContext tx = cfg.dsl();
            Instant now = now();
            String[] eventArray = events.toArray(String[]::new);
            // Inserting first, not reading first: of two first PUTs racing, one inserts and the other finds its row.
            // The row found by the conflict may be deleted before it is locked (a DELETE committing in between): then
            // this PUT comes after that DELETE and registers anew. Each turn needs another committed DELETE, so the
            // loop ends unless deletes keep winning, which the bound turns into an error instead of a spin.
            for (int attempt = 1; attempt <= PUT_ATTEMPTS; attempt++) {
                WebhookSecret secret = WebhookSecret.generate();
                boolean inserted = tx.insertInto(W, W.TENANT, W.URL, W.EVENTS, W.SECRET, W.CREATED_AT, W.UPDATED_AT)
                                .values(tenant, url, eventArray, box.seal(secret, tenant), now, now)
                                .onConflict(W.TENANT)
                                .doNothing()
                                .execute()
                        == 1;
                if (inserted) {
                    append(tx, tenant, REGISTERED, url, eventArray, actor, now);
                    return new Saved(new Registration(tenant, url, List.copyOf(events), now, now, null), secret, true);
                }
                Optional<WebhooksRecord> found =
                        tx.selectFrom(W).where(W.TENANT.eq(tenant)).forUpdate().fetchOptional();
                if (found.isEmpty()) {
                    continue;
                }
                WebhooksRecord row = found.get();
                if (row.getUrl().equals(url) && List.of(row.getEvents()).equals(events)) {
                    return new Saved(registration(row), null, false);
                }
                row.setUrl(url);
                row.setEvents(eventArray);
                row.setUpdatedAt(now);
                row.update();
                append(tx, tenant, CHANGED, url, eventArray, actor, now);
                return new Saved(registration(row), null, true);
            }
            throw new IllegalStateException("the webhook of tenant " + tenant + " was deleted under " + PUT_ATTEMPTS
                    + " PUTs in a row; nothing was written");
        });
    }

    /**
     * Gives {@code tenant}'s registration a new secret; the current one becomes the previous and keeps signing for
     * {@link #PREVIOUS_SECRET_VALIDITY}. A secret rotated out earlier is dropped at once: at most two sign. Empty when
     * the tenant has no registration.
     */
    public Optional<Rotated> rotate(String tenant, String actor) {
        return dsl.transactionResult(cfg -> {
            DSLContext tx = cfg.dsl();
            Optional<WebhooksRecord> found =
                    tx.selectFrom(W).where(W.TENANT.eq(tenant)).forUpdate().fetchOptional();
            if (found.isEmpty()) {
                return Optional.<Rotated>empty();
            }
            WebhooksRecord row = found.get();
            Instant now = now();
            WebhookSecret secret = WebhookSecret.generate();
            row.setPreviousSecret(row.getSecret());
            row.setPreviousUntil(now.plus(PREVIOUS_SECRET_VALIDITY));
            row.setSecret(box.seal(secret, tenant));
            row.setUpdatedAt(now);
            row.update();
            append(tx, tenant, ROTATED, row.getUrl(), row.getEvents(), actor, now);
            return Optional.of(new Rotated(registration(row), secret));
        });
    }

    /** Removes {@code tenant}'s registration (its secrets with it); false, and nothing recorded, when there was none. */
    public boolean delete(String tenant, String actor) {
        return dsl.transactionResult(cfg -> {
            DSLContext tx = cfg.dsl();
            if (tx.deleteFrom(W).where(W.TENANT.eq(tenant)).execute() == 0) {
                return false;
            }
            append(tx, tenant, DELETED, null, null, actor, now());
            return true;
        });
    }

    public Optional<Registration> find(String tenant) {
        return dsl.selectFrom(W).where(W.TENANT.eq(tenant)).fetchOptional().map(WebhookStore::registration);
    }

    /**
     * The secrets a delivery made at {@code at} is signed with: the current one first, then the previous one while it
     * still signs. Empty when the tenant has no registration. For the delivery worker.
     */
    public List<WebhookSecret> signingSecrets(String tenant, Instant at) {
        Optional<WebhooksRecord> found =
                dsl.selectFrom(W).where(W.TENANT.eq(tenant)).fetchOptional();
        if (found.isEmpty()) {
            return List.of();
        }
        WebhooksRecord row = found.get();
        List<WebhookSecret> secrets = new ArrayList<>(2);
        secrets.add(box.open(row.getSecret(), tenant));
        if (row.getPreviousSecret() != null && at.isBefore(row.getPreviousUntil())) {
            secrets.add(box.open(row.getPreviousSecret(), tenant));
        }
        return secrets;
    }

    /**
     * The secrets that sign at {@code at}, opened from a registration's stored values (read with its delivery, in one
     * statement): the current one first, then the previous one while it still signs.
     */
    public List<WebhookSecret> signingSecrets(
            String tenant, byte[] secret, byte[] previousSecret, Instant previousUntil, Instant at) {
        List<WebhookSecret> secrets = new ArrayList<>(2);
        secrets.add(box.open(secret, tenant));
        if (previousSecret != null && previousUntil != null && at.isBefore(previousUntil)) {
            secrets.add(box.open(previousSecret, tenant));
        }
        return secrets;
    }

    /** Whether any client key belongs to {@code tenant}: staff name a tenant, and a typo must not register for nobody. */
    public boolean tenantExists(String tenant) {
        return dsl.fetchExists(API_KEYS, API_KEYS.TENANT.eq(tenant).and(API_KEYS.ROLE.eq("client")));
    }

    private Instant now() {
        // As PostgreSQL keeps it (microseconds): an answer shows the same time as every later read.
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static void append(
            DSLContext tx, String tenant, String action, String url, String[] events, String actor, Instant at) {
        tx.insertInto(C, C.TENANT, C.ACTION, C.URL, C.EVENTS, C.ACTOR, C.AT)
                .values(tenant, action, url, events, actor, at)
                .execute();
    }

    private static Registration registration(WebhooksRecord row) {
        return new Registration(
                row.getTenant(),
                row.getUrl(),
                List.of(row.getEvents()),
                row.getCreatedAt(),
                row.getUpdatedAt(),
                row.getPreviousUntil());
    }
}
