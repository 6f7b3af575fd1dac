import time
from course.classroom import rehearsal_hub as rh
orig_start, orig_stop = rh.Hub.start, rh.Hub.stop
def start(self):
    t=time.perf_counter(); orig_start(self); print("hub start", round(time.perf_counter()-t,2))
def stop(self):
    t=time.perf_counter(); orig_stop(self); print("hub stop", round(time.perf_counter()-t,2))
rh.Hub.start, rh.Hub.stop = start, stop
t=time.perf_counter()
run = rh.rehearse_on_hub(2, "lexical")
print("total", round(time.perf_counter()-t,2))
print(rh.report(run))
