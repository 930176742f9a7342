package dev.sendlog.service.resources;

import dev.sendlog.service.auth.Caller;
import dev.sendlog.service.auth.Role;
import dev.sendlog.service.errors.FieldError;
import dev.sendlog.service.log.StorableText;
import java.util.List;
import java.util.function.Predicate;

/**
 * Whose tenant-scoped resource a request is about (a suppression list, a webhook): a client key's own tenant (naming
 * another is refused); staff must name one, and it must be a tenant some client key belongs to, so that a typo does
 * not create something nobody's messages reach. Problems go to {@code errors}, each naming the field {@code tenant}.
 */
final class TenantScope {
    private TenantScope() {}

    /** @param thing what the resource is called in the errors ("list", "webhook") */
    static String tenant(
            Caller caller, String tenant, List<FieldError> errors, Predicate<String> exists, String thing) {
        if (tenant != null) {
            String unstorable = StorableText.problem(tenant);
            if (unstorable != null) {
                errors.add(new FieldError("tenant", unstorable));
                return null;
            }
        }
        if (caller.role() == Role.CLIENT) {
            if (tenant != null && !tenant.equals(caller.tenant())) {
                errors.add(new FieldError("tenant", "a client key manages its own tenant's " + thing + " only"));
            }
            return caller.tenant();
        }
        if (tenant == null || tenant.isEmpty()) {
            errors.add(new FieldError(
                    "tenant", "required with a support or admin key: the tenant whose " + thing + " this is"));
            return null;
        }
        if (errors.isEmpty() && !exists.test(tenant)) {
            errors.add(new FieldError("tenant", "no client key belongs to tenant " + tenant));
        }
        return tenant;
    }
}
