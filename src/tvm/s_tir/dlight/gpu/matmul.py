from .base import GPUScheduleRule


class Matmul(GPUScheduleRule):
    def apply(self, func, target, tunable):
        return None
