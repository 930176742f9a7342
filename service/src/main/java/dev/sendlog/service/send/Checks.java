package dev.sendlog.service.send;

import dev.sendlog.events.Rejected;
import dev.sendlog.service.config.PipelineSettings.CheckSettings;
import dev.sendlog.service.log.MessageRow;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;

/**
 * The checks a worker runs after claiming and before any provider call. A message that fails one is
 * REJECTED with the reason; nothing recorded for it ever says it went to a provider. Last, the tenant's suppression
 * list (API.md): a listed recipient's message is REJECTED with lastError {@code suppressed}.
 */
public final class Checks {
    private final Pattern recipient;
    private final int maxBodyChars;
    private final Set<String> blockedExact;
    private final List<String> blockedPrefixes;
    private final Set<String> blockedTenants;
    private final BiPredicate<String, String> suppressed;

    /** @param suppressed whether a tenant (first) has suppressed a recipient (second): {@link SuppressionCache#suppressed} */
    public Checks(CheckSettings settings, BiPredicate<String, String> suppressed) {
        this.suppressed = suppressed;
        this.recipient = Pattern.compile(settings.recipientPattern);
        this.maxBodyChars = settings.maxBodyChars;
        this.blockedExact = Set.copyOf(settings.blockedRecipients.stream()
                .filter(b -> !b.endsWith("*"))
                .toList());
        this.blockedPrefixes = settings.blockedRecipients.stream()
                .filter(b -> b.endsWith("*"))
                .map(b -> b.substring(0, b.length() - 1))
                .toList();
        this.blockedTenants = Set.copyOf(settings.blockedTenants);
    }

    /** The REJECTED event of a message that may not be sent, or empty when it may. */
    public Optional<Rejected> rejection(MessageRow m) {
        Optional<String> refusal = refuse(m);
        if (refusal.isPresent()) {
            return Optional.of(new Rejected(Rejected.STAGE_CHECK, refusal.get()));
        }
        return suppressed.test(m.tenant(), m.recipient()) ? Optional.of(Rejected.suppressed()) : Optional.empty();
    }

    /** Why the message may not be sent by the configured checks, or empty when it may. */
    public Optional<String> refuse(MessageRow m) {
        if (blockedTenants.contains(m.tenant())) {
            return Optional.of("tenant " + m.tenant() + " is not allowed to send");
        }
        if (!recipient.matcher(m.recipient()).matches()) {
            return Optional.of("recipient " + m.recipient() + " is not a valid number (E.164: + and 7 to 15 digits)");
        }
        if (blockedExact.contains(m.recipient()) || blockedPrefixes.stream().anyMatch(m.recipient()::startsWith)) {
            return Optional.of("recipient " + m.recipient() + " is on the block list");
        }
        int chars = m.body().codePointCount(0, m.body().length());
        if (chars > maxBodyChars) {
            return Optional.of("body has " + chars + " characters, more than " + maxBodyChars);
        }
        return Optional.empty();
    }
}
