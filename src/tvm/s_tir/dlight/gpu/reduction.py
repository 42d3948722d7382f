from .base import GPUScheduleRule


class GeneralReduction(GPUScheduleRule):
    def apply(self, func, target, tunable):
        return None


class Reduction(GeneralReduction):
    pass
