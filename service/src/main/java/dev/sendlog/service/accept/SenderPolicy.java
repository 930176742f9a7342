package dev.sendlog.service.accept;

import dev.sendlog.service.config.TenantSettings;
import dev.sendlog.service.errors.ApiProblem;
import dev.sendlog.service.errors.FieldError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which sender id a tenant's message goes out with: the one it names, else the tenant's {@code defaultSender}, else
 * none (the provider's own default). A tenant with a {@code senders} list may name only those: another is refused at
 * submit with 400, before anything is stored. The configuration is checked when the policy is built, so a process
 * with a default sender that is not a valid sender id, or not in its own tenant's list, does not start.
 */
public final class SenderPolicy {
    private record Tenant(String defaultSender, Set<String> allowed) {}

    private final Map<String, Tenant> tenants;

    public SenderPolicy(Map<String, TenantSettings> settings) {
        Map<String, Tenant> built = new java.util.HashMap<>();
        List<String> problems = new ArrayList<>();
        settings.forEach((name, t) -> {
            for (String s : t.senders) {
                if (s == null || !SenderIds.isValid(s)) {
                    problems.add("tenants." + name + ".senders: '" + s + "' " + SenderIds.RULE);
                }
            }
            if (t.defaultSender != null && !SenderIds.isValid(t.defaultSender)) {
                problems.add("tenants." + name + ".defaultSender: '" + t.defaultSender + "' " + SenderIds.RULE);
            } else if (t.defaultSender != null && !t.senders.isEmpty() && !t.senders.contains(t.defaultSender)) {
                problems.add(
                        "tenants." + name + ".defaultSender: '" + t.defaultSender + "' is not in its senders list");
            }
            built.put(name, new Tenant(t.defaultSender, Set.copyOf(t.senders)));
        });
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("invalid sender configuration: " + String.join("; ", problems));
        }
        this.tenants = Map.copyOf(built);
    }

    /** The drafts with their sender ids decided, or a 400 naming every message whose sender this tenant may not use. */
    public List<MessageDraft> apply(String tenant, List<MessageDraft> drafts, boolean batch) {
        Tenant t = tenants.get(tenant);
        if (t == null) {
            return drafts;
        }
        List<MessageDraft> out = new ArrayList<>(drafts.size());
        List<FieldError> errors = new ArrayList<>();
        for (int i = 0; i < drafts.size(); i++) {
            MessageDraft d = drafts.get(i);
            String from = d.from() != null ? d.from() : t.defaultSender();
            if (d.from() != null && !t.allowed().isEmpty() && !t.allowed().contains(d.from())) {
                errors.add(new FieldError(
                        (batch ? "messages[" + i + "]." : "") + "from",
                        "is not one of this tenant's sender ids: "
                                + t.allowed().stream().sorted().toList()));
            }
            out.add(from == d.from() ? d : d.withFrom(from));
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.badRequest(
                    batch ? "the batch is invalid; nothing was accepted" : "the message is invalid", errors);
        }
        return out;
    }
}
