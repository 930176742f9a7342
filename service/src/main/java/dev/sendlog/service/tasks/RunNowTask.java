package dev.sendlog.service.tasks;

import io.dropwizard.servlets.tasks.Task;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** An admin task ({@code POST /tasks/<name>} on the admin port) that runs a scheduled job now and prints its result. */
public final class RunNowTask extends Task {
    private final Callable<?> job;

    public RunNowTask(String name, Callable<?> job) {
        super(name);
        this.job = job;
    }

    @Override
    public void execute(Map<String, List<String>> parameters, PrintWriter output) throws Exception {
        output.println(job.call());
    }
}
