package dev.sendlog.service.tasks;

import io.dropwizard.servlets.tasks.Task;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** An admin task acting on one component named by {@code ?component=}, e.g. {@code POST /tasks/pause?component=poller}. */
public final class ComponentTask extends Task {
    private final Consumer<String> action;

    public ComponentTask(String name, Consumer<String> action) {
        super(name);
        this.action = action;
    }

    @Override
    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
        List<String> component = parameters.get("component");
        if (component == null || component.size() != 1) {
            throw new IllegalArgumentException("give exactly one ?component=");
        }
        action.accept(component.getFirst());
        output.println(getName() + " " + component.getFirst());
    }
}
